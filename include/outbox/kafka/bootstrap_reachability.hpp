#pragma once

#include <chrono>
#include <string>

namespace outbox::kafka {

// Why librdkafka reached no broker, in words an operator can act on, found by connecting to each
// bootstrap server over TCP (classified by getaddrinfo's and connect's error codes, each attempt
// within `budget_each`): "no bootstrap broker accepts connections: host:port: connection refused
// (...); ...". Empty when one accepts connections: then the cause lies past the connection
// (the protocol, TLS, credentials) and librdkafka's words stand.
std::string unreachable_bootstrap_brokers(const std::string& bootstrap_servers, std::chrono::milliseconds budget_each);

}  // namespace outbox::kafka
