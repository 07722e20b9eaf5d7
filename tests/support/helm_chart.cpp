#include "helm_chart.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <stdexcept>

#include "pg_server.hpp"

namespace outbox::test {

Rendering render_chart(const std::string& values_yaml, const std::string& kube_version) {
    const auto dir = make_temp_dir("helm-render");
    write_file(dir + "/values.yaml", values_yaml);
    const std::string command = std::string(OUTBOX_HELM_BINARY) + " template outbox " + OUTBOX_SOURCE_DIR +
                                "/deploy/helm/outbox-router --kube-version " + kube_version + " -f " + dir +
                                "/values.yaml >" + dir + "/out.yaml 2>" + dir + "/err.txt";
    const int status = std::system(command.c_str());
    Rendering rendering;
    rendering.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    rendering.manifests = read_file(dir + "/out.yaml");
    rendering.errors = read_file(dir + "/err.txt");
    std::system(("rm -rf " + dir).c_str());
    return rendering;
}

}  // namespace outbox::test
