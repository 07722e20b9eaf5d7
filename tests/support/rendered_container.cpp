#include "rendered_container.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "pg_server.hpp"
#include "router_process.hpp"

namespace outbox::test {
namespace fs = std::filesystem;

namespace {
// The path inside the image that the chart's command runs: the Dockerfile installs it there.
constexpr const char* kImageBinary = "/usr/local/bin/outbox-router";

int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

// The deepest folder of `path` that exists on this machine.
std::string existing_ancestor(const std::string& path) {
    fs::path at = fs::path(path).parent_path();
    while (!fs::exists(at)) at = at.parent_path();
    return at.string();
}

[[noreturn]] void child_fail(const char* what) {
    const int saved = errno;
    const char* prefix = "rendered container: ";
    [[maybe_unused]] auto w = write(STDERR_FILENO, prefix, std::char_traits<char>::length(prefix));
    w = write(STDERR_FILENO, what, std::char_traits<char>::length(what));
    const char* reason = strerror(saved);
    w = write(STDERR_FILENO, ": ", 2);
    w = write(STDERR_FILENO, reason, std::strlen(reason));
    w = write(STDERR_FILENO, "\n", 1);
    _exit(126);
}
}  // namespace

RenderedContainer::RenderedContainer(const std::string& manifests, SecretStore secrets)
    : dir_(make_temp_dir("rendered-container-")) {
    try {
        read_manifests(manifests, secrets);
    } catch (...) {
        fs::remove_all(dir_);  // no destructor runs for a constructor that throws
        throw;
    }
}

void RenderedContainer::read_manifests(const std::string& manifests, const SecretStore& secrets) {
    chmod(dir_.c_str(), 0755);
    log_path_ = dir_ + "/output.log";
    for (const auto& document : YAML::LoadAll(manifests))
        if (document.IsMap()) documents_.push_back(document);
    const auto deployments = documents("Deployment");
    if (deployments.size() != 1) throw std::runtime_error("the manifests hold " + std::to_string(deployments.size()) + " Deployments");
    deployment_ = deployments.front();
    container_ = deployment_["spec"]["template"]["spec"]["containers"][0];
    if (!container_["command"]) throw std::runtime_error("the container names no command");

    const auto pod = deployment_["spec"]["template"]["spec"];
    if (const auto context = pod["securityContext"]) {
        if (context["runAsUser"]) user_ = context["runAsUser"].as<uid_t>();
        if (context["runAsGroup"]) group_ = context["runAsGroup"].as<gid_t>();
        if (context["fsGroup"]) fs_group_ = context["fsGroup"].as<gid_t>();
    }
    if (const auto context = container_["securityContext"]) {
        if (context["runAsUser"]) user_ = context["runAsUser"].as<uid_t>();
        if (context["runAsGroup"]) group_ = context["runAsGroup"].as<gid_t>();
        read_only_root_ = context["readOnlyRootFilesystem"] && context["readOnlyRootFilesystem"].as<bool>();
    }

    for (const auto& part : container_["command"]) argv_.push_back(part.as<std::string>());
    for (const auto& part : container_["args"]) argv_.push_back(part.as<std::string>());
    if (argv_.front() != kImageBinary)
        throw std::runtime_error("the container runs " + argv_.front() + ", not the image's " + kImageBinary);
    env_.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env_.push_back("HOSTNAME=" + deployment_["metadata"]["name"].as<std::string>() + "-0");
    if (container_["envFrom"]) throw std::runtime_error("envFrom is not modelled here");
    for (const auto& entry : container_["env"])
        env_.push_back(entry["name"].as<std::string>() + "=" + value_of_env(entry, secrets));
    materialize_volumes(secrets);
    mounts_.push_back({OUTBOX_ROUTER_BINARY, kImageBinary, false, true});
}

RenderedContainer::~RenderedContainer() {
    if (running()) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
    }
    fs::remove_all(dir_);
}

std::vector<YAML::Node> RenderedContainer::documents(const std::string& kind) const {
    std::vector<YAML::Node> found;
    for (const auto& document : documents_)
        if (document["kind"] && document["kind"].as<std::string>() == kind) found.push_back(document);
    return found;
}

std::string RenderedContainer::value_of_env(const YAML::Node& entry, const SecretStore& secrets) const {
    if (entry["value"]) return entry["value"].as<std::string>();
    const auto from = entry["valueFrom"];
    if (from && from["secretKeyRef"]) {
        const auto name = from["secretKeyRef"]["name"].as<std::string>();
        const auto key = from["secretKeyRef"]["key"].as<std::string>();
        return secrets.at(name).at(key);
    }
    if (from && from["configMapKeyRef"]) {
        const auto name = from["configMapKeyRef"]["name"].as<std::string>();
        for (const auto& map : documents("ConfigMap"))
            if (map["metadata"]["name"].as<std::string>() == name)
                return map["data"][from["configMapKeyRef"]["key"].as<std::string>()].as<std::string>();
    }
    throw std::runtime_error("environment variable " + entry["name"].as<std::string>() + ": a source not modelled here");
}

// Each volume as the kubelet lays it out: a folder of one file per key (or per `items` entry),
// mode defaultMode; with an fsGroup, files are group-owned by it and group-readable.
void RenderedContainer::materialize_volumes(const SecretStore& secrets) {
    const auto pod = deployment_["spec"]["template"]["spec"];
    std::map<std::string, std::string> volume_dirs;
    for (const auto& volume : pod["volumes"]) {
        const auto name = volume["name"].as<std::string>();
        const auto folder = dir_ + "/volumes/" + name;
        fs::create_directories(folder);
        chmod(folder.c_str(), 0755);
        std::map<std::string, std::string> data;
        const YAML::Node config_map = volume["configMap"];
        const YAML::Node secret = volume["secret"];
        if (config_map) {
            const auto map_name = config_map["name"].as<std::string>();
            bool found = false;
            for (const auto& map : documents("ConfigMap"))
                if (map["metadata"]["name"].as<std::string>() == map_name) {
                    found = true;
                    for (const auto& item : map["data"]) data[item.first.as<std::string>()] = item.second.as<std::string>();
                }
            if (!found) throw std::runtime_error("volume " + name + ": ConfigMap " + map_name + " is not in the manifests");
        } else if (secret) {
            const auto secret_name = secret["secretName"].as<std::string>();
            if (!secrets.count(secret_name)) throw std::runtime_error("volume " + name + ": no Secret " + secret_name);
            data = secrets.at(secret_name);
        } else {
            throw std::runtime_error("volume " + name + ": a kind not modelled here");
        }
        const YAML::Node source = config_map ? config_map : secret;
        int mode = 0644;
        if (source["defaultMode"]) mode = source["defaultMode"].as<int>();
        std::map<std::string, std::string> files;
        if (source["items"]) {
            for (const auto& item : source["items"])
                files[item["path"].as<std::string>()] = data.at(item["key"].as<std::string>());
        } else {
            files = data;
        }
        for (const auto& [path, contents] : files) {
            const auto file = folder + "/" + path;
            fs::create_directories(fs::path(file).parent_path());
            write_file(file, contents);
            if (fs_group_ != 0) {
                if (chown(file.c_str(), 0, fs_group_) != 0) throw std::runtime_error("chown " + file);
                mode |= 0440;
            }
            chmod(file.c_str(), static_cast<mode_t>(mode));
        }
        volume_dirs[name] = folder;
    }
    for (const auto& mount : container_["volumeMounts"]) {
        const auto name = mount["name"].as<std::string>();
        if (!volume_dirs.count(name)) throw std::runtime_error("volume mount " + name + " names no volume");
        Mount m;
        m.target = mount["mountPath"].as<std::string>();
        m.read_only = mount["readOnly"] && mount["readOnly"].as<bool>();
        if (mount["subPath"]) {
            m.source = volume_dirs[name] + "/" + mount["subPath"].as<std::string>();
            if (!fs::exists(m.source)) throw std::runtime_error("volume mount " + name + ": no " + m.source);
        } else {
            m.source = volume_dirs[name];
            m.directory = true;
        }
        mounts_.push_back(m);
    }
}

std::string RenderedContainer::file_at(const std::string& path) const {
    for (auto mount = mounts_.rbegin(); mount != mounts_.rend(); ++mount) {
        if (!mount->directory && mount->target == path) return read_file(mount->source);
        if (mount->directory && path.rfind(mount->target + "/", 0) == 0)
            return read_file(mount->source + path.substr(mount->target.size()));
    }
    return "";
}

int RenderedContainer::port(const std::string& name) const {
    for (const auto& port : container_["ports"])
        if (port["name"].as<std::string>() == name) return port["containerPort"].as<int>();
    throw std::runtime_error("the container has no port " + name);
}

void RenderedContainer::start() {
    // Everything the child needs is made before fork(): the test process has threads.
    struct Overlay {
        std::string base, options;
    };
    std::vector<Overlay> overlays;
    std::set<std::string> bases;
    std::vector<std::string> folders;  // created in the overlays, parents first
    for (const auto& mount : mounts_) {
        if (fs::exists(mount.target)) continue;
        const auto base = existing_ancestor(mount.target);
        if (bases.insert(base).second) {
            const auto layer = dir_ + "/overlay/" + std::to_string(overlays.size());
            fs::create_directories(layer + "/upper");
            fs::create_directories(layer + "/work");
            overlays.push_back({base, "lowerdir=" + base + ",upperdir=" + layer + "/upper,workdir=" + layer + "/work"});
        }
        for (fs::path at = mount.directory ? fs::path(mount.target) : fs::path(mount.target).parent_path();
             at.string().size() > base.size(); at = at.parent_path())
            folders.insert(folders.begin(), at.string());
    }
    std::vector<char*> argv, envp;
    for (auto& part : argv_) argv.push_back(part.data());
    argv.push_back(nullptr);
    for (auto& part : env_) envp.push_back(part.data());
    envp.push_back(nullptr);
    const gid_t groups[] = {fs_group_ != 0 ? fs_group_ : group_};

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ > 0) return;

    const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    if (unshare(CLONE_NEWNS) != 0) child_fail("unshare(CLONE_NEWNS)");
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) child_fail("making / private");
    for (const auto& overlay : overlays)
        if (mount("overlay", overlay.base.c_str(), "overlay", 0, overlay.options.c_str()) != 0) child_fail("overlay");
    for (const auto& folder : folders) mkdir(folder.c_str(), 0755);
    for (const auto& m : mounts_) {
        if (!m.directory && access(m.target.c_str(), F_OK) != 0) {
            const int file = open(m.target.c_str(), O_WRONLY | O_CREAT, 0644);
            if (file < 0) child_fail(m.target.c_str());
            close(file);
        }
        if (mount(m.source.c_str(), m.target.c_str(), nullptr, MS_BIND, nullptr) != 0) child_fail(m.target.c_str());
        if (m.read_only && mount(nullptr, m.target.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0)
            child_fail(m.target.c_str());
    }
    if (read_only_root_) {
        if (mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) child_fail("read-only /");
        for (const auto& overlay : overlays)
            if (mount(nullptr, overlay.base.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0)
                child_fail("read-only overlay");
    }
    if (chdir("/") != 0) child_fail("chdir /");
    if (user_ != 0) {
        if (setgroups(1, groups) != 0) child_fail("setgroups");
        if (setgid(group_) != 0) child_fail("setgid");
        if (setuid(user_) != 0) child_fail("setuid");
    }
    execve(argv[0], argv.data(), envp.data());
    child_fail(argv[0]);
}

bool RenderedContainer::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = decode_status(status);
        pid_ = -1;
        return false;
    }
    return true;
}

int RenderedContainer::wait(std::chrono::milliseconds timeout) {
    if (!wait_until([&] { return !running(); }, timeout)) return -1;
    return exit_code_;
}

int RenderedContainer::stop(int signal, std::chrono::milliseconds timeout) {
    if (!running()) return exit_code_;
    kill(pid_, signal);
    const int code = wait(timeout);
    if (code == -1 && running()) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
    }
    return code;
}

std::string RenderedContainer::output() const { return read_file(log_path_); }

bool RenderedContainer::wait_output(const std::string& text, std::chrono::milliseconds timeout) {
    return wait_until([&] { return output().find(text) != std::string::npos || !running(); }, timeout) &&
           output().find(text) != std::string::npos;
}

}  // namespace outbox::test
