#pragma once

#include <string>
#include <vector>

namespace outbox::test {

// The chart in deploy/helm/outbox-router rendered by the real helm (scripts/go-tool.sh builds it).
struct Rendering {
    int exit_code = -1;
    std::string manifests;  // helm's stdout: the documents
    std::string errors;     // helm's stderr
};

// `helm template` of the chart with `values_yaml` as a values file, for Kubernetes `kube_version`.
Rendering render_chart(const std::string& values_yaml, const std::string& kube_version = "1.33.0");

}  // namespace outbox::test
