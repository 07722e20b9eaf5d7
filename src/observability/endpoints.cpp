#include "outbox/observability/endpoints.hpp"

namespace outbox::observability {
namespace {
constexpr const char* kPrometheusText = "text/plain; version=0.0.4; charset=utf-8";

HttpResponse verdict_response(const Health::Verdict& verdict) {
    return {verdict.ok ? 200u : 503u, "text/plain; charset=utf-8", verdict.detail};
}
}  // namespace

HttpResponse handle_request(const Metrics& metrics, std::string_view method, std::string_view path) {
    if (method != "GET" && method != "HEAD") return {405, "text/plain; charset=utf-8", "only GET and HEAD\n"};
    if (path == "/metrics") return {200, kPrometheusText, metrics.render()};
    if (path == "/healthz") return verdict_response(metrics.health.liveness());
    if (path == "/readyz") return verdict_response(metrics.health.readiness());
    return {404, "text/plain; charset=utf-8", "not found; try /metrics, /healthz or /readyz\n"};
}

}  // namespace outbox::observability
