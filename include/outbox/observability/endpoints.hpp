#pragma once

#include <string_view>

#include "outbox/observability/http_server.hpp"
#include "outbox/observability/metrics.hpp"

namespace outbox::observability {

// The router's HTTP surface:
//   GET /metrics  Prometheus text exposition
//   GET /healthz  200 while the main loop makes progress, else 503
//   GET /readyz   200 while streaming from PostgreSQL and Kafka answers, else 503
// Bodies of the health endpoints say which check passed or failed, one line each.
HttpResponse handle_request(const Metrics& metrics, std::string_view method, std::string_view path);

}  // namespace outbox::observability
