#pragma once

#include <chrono>
#include <string>

#include "outbox/kafka/broker_address.hpp"
#include "outbox/util/file_descriptor.hpp"

namespace outbox::kafka {

// How a TCP connection attempt ended, by getaddrinfo's and connect's error codes.
enum class ConnectOutcome {
    connected,
    host_not_found,     // the name does not resolve (EAI_NONAME, EAI_NODATA, EAI_FAIL)
    lookup_failed,      // the resolver failed (EAI_AGAIN and others); `error` holds the EAI_* code
    lookup_timed_out,   // the resolver did not answer before the deadline
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

// Connects to each address `address` resolves to until one accepts, by the deadline, the host
// name lookup included (host_lookup.hpp); gives up as timed_out (lookup_timed_out while looking
// the name up) when `cancel_fd` (if >= 0) becomes readable.
TcpConnection connect_tcp(const BrokerAddress& address, std::chrono::steady_clock::time_point deadline,
                          int cancel_fd = -1);

// The outcome in words an operator can act on, e.g. "connection refused (nothing listens on that port)".
std::string describe(ConnectOutcome outcome, int error);

}  // namespace outbox::kafka
