#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace outbox::kafka {

// One entry of bootstrap.servers: host:port, [v6]:port, optionally with a protocol:// prefix.
struct BrokerAddress {
    std::string host;
    std::string port;
};
std::optional<BrokerAddress> parse_broker_address(std::string text);

// bootstrap.servers split at commas, each entry trimmed; empty entries dropped.
std::vector<std::string> bootstrap_entries(const std::string& bootstrap_servers);

// One listener's address in one form, so that a bootstrap entry ("localhost:9093", "[::1]:9093")
// and librdkafka's names for the broker behind it ("ssl://LocalHost:9093/1",
// "sasl_ssl://::1:9093/bootstrap") compare equal: the host in lower case, an IPv6 address in its
// shortest form and in brackets, then ":port". Empty when `text` is not host:port.
std::string normalized_broker_address(std::string_view text);

}  // namespace outbox::kafka
