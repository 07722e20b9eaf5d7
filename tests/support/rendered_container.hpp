#pragma once

#include <sys/types.h>

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace outbox::test {

// Secret name → key → contents: the Kubernetes Secrets a rendered chart refers to.
using SecretStore = std::map<std::string, std::map<std::string, std::string>>;

// The first container of the Deployment in a chart's rendered manifests, run on this machine as
// the kubelet would run it: its command, arguments and environment as rendered, each volume
// mount's contents (ConfigMaps from the manifests, Secrets from a SecretStore) written to a
// temporary folder and bind-mounted at the mount path in a mount namespace of its own, the
// image's binary (the command's path) replaced by the router built here, the root file system
// read-only when the container's securityContext says so, and the pod's user, group and fsGroup
// (secret files group-owned by it, mode defaultMode). Needs root, as make test runs.
class RenderedContainer {
public:
    RenderedContainer(const std::string& manifests, SecretStore secrets);
    ~RenderedContainer();
    RenderedContainer(const RenderedContainer&) = delete;
    RenderedContainer& operator=(const RenderedContainer&) = delete;

    const YAML::Node& deployment() const { return deployment_; }
    const YAML::Node& container() const { return container_; }
    // The rendered documents of `kind`.
    std::vector<YAML::Node> documents(const std::string& kind) const;
    // What the container sees at `path` (a file under a volume mount); empty when nothing.
    std::string file_at(const std::string& path) const;
    // The container's port named `name`.
    int port(const std::string& name) const;

    // Starts the container's process; its output goes to a log file.
    void start();
    int stop(int signal, std::chrono::milliseconds timeout = std::chrono::seconds(60));
    int wait(std::chrono::milliseconds timeout);
    bool running();
    std::string output() const;
    bool wait_output(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(60));
    pid_t pid() const { return pid_; }
    // The user the pod runs as (runAsUser), and whether the container's root is read-only.
    uid_t user() const { return user_; }
    bool read_only_root() const { return read_only_root_; }

private:
    struct Mount {
        std::string source;  // a file or folder in dir_
        std::string target;  // the mount path
        bool directory = false;
        bool read_only = true;
    };
    void read_manifests(const std::string& manifests, const SecretStore& secrets);
    void materialize_volumes(const SecretStore& secrets);
    std::string value_of_env(const YAML::Node& entry, const SecretStore& secrets) const;

    std::vector<YAML::Node> documents_;
    YAML::Node deployment_;
    YAML::Node container_;
    std::string dir_;
    std::string log_path_;
    std::vector<Mount> mounts_;
    std::vector<std::string> argv_;
    std::vector<std::string> env_;
    uid_t user_ = 0;
    gid_t group_ = 0;
    gid_t fs_group_ = 0;
    bool read_only_root_ = false;
    pid_t pid_ = -1;
    int exit_code_ = -1;
};

}  // namespace outbox::test
