#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace outbox::test {

struct HttpReply {
    int status = 0;  // 0: no connection or no HTTP answer
    std::string headers;
    std::string body;
};

// One HTTP/1.0 request to 127.0.0.1:`port` over a plain socket, read until the server closes.
HttpReply http_request(std::uint16_t port, const std::string& method, const std::string& path);
inline HttpReply http_get(std::uint16_t port, const std::string& path) { return http_request(port, "GET", path); }

// The value of one series in a Prometheus text exposition, e.g.
// `outbox_router_events_published_total{topic="outbox.event.Order"}`; nullopt when absent.
std::optional<double> sample_value(const std::string& exposition, const std::string& series);

}  // namespace outbox::test
