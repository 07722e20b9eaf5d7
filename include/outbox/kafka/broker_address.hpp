#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "outbox/util/file_descriptor.hpp"

namespace outbox::kafka {

// One entry of bootstrap.servers: host:port, [v6]:port, optionally with a protocol:// prefix.
struct BrokerAddress {
    std::string host;
    std::string port;
};
std::optional<BrokerAddress> parse_broker_address(std::string text);

// bootstrap.servers split at commas, each entry trimmed; empty entries dropped.
std::vector<std::string> bootstrap_entries(const std::string& bootstrap_servers);

// How a TCP connection attempt ended, by getaddrinfo's and connect's error codes.
enum class ConnectOutcome {
    connected,
    host_not_found,     // the name does not resolve (EAI_NONAME, EAI_NODATA, EAI_FAIL)
    lookup_failed,      // the resolver did not answer (EAI_AGAIN) or failed otherwise
    refused,            // ECONNREFUSED: the host answers, nothing listens on the port
    timed_out,          // no answer before the deadline (or ETIMEDOUT)
    unreachable,        // ENETUNREACH, EHOSTUNREACH: no route to the host
    failed,             // another error; `error` holds errno
};

struct TcpConnection {
    ConnectOutcome outcome = ConnectOutcome::failed;
    FileDescriptor socket;  // non-blocking; valid when connected
    int error = 0;
};

// Connects to each address `address` resolves to until one accepts, by the deadline; gives up as
// timed_out when `cancel_fd` (if >= 0) becomes readable. The host name lookup itself is not bounded.
TcpConnection connect_tcp(const BrokerAddress& address, std::chrono::steady_clock::time_point deadline,
                          int cancel_fd = -1);

// Whether `fd` became ready for `events` before the deadline and before `cancel_fd` (ignored
// when negative) became readable.
bool wait_for_socket(int fd, short events, std::chrono::steady_clock::time_point deadline, int cancel_fd);

// The outcome in words an operator can act on, e.g. "connection refused (nothing listens on that port)".
std::string describe(ConnectOutcome outcome, int error);

}  // namespace outbox::kafka
