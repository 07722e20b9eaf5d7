#pragma once

#include <netdb.h>

#include <chrono>
#include <functional>
#include <memory>

#include "outbox/kafka/broker_address.hpp"

namespace outbox::kafka {

struct FreeAddrinfo {
    void operator()(addrinfo* p) const { freeaddrinfo(p); }
};
using AddrinfoPtr = std::unique_ptr<addrinfo, FreeAddrinfo>;

// getaddrinfo's signature: the system's resolver, or a stand-in in tests. What it returns is
// released with freeaddrinfo.
using Resolver = std::function<int(const char* host, const char* port, const addrinfo* hints, addrinfo** result)>;

struct HostLookup {
    int error = 0;           // getaddrinfo's EAI_* code when it answered with an error
    bool gave_up = false;    // no answer before the deadline or the cancel
    AddrinfoPtr addresses;   // the TCP addresses, when it answered with them
};

// The TCP addresses of `address`, by the deadline; gives up as soon as `cancel_fd` (when >= 0)
// becomes readable. getaddrinfo has no timeout of its own (a resolver that never answers, an NSS
// source that hangs), so a name is looked up on a thread of its own that owns all it touches: a
// caller that gives up leaves it to end by itself, and nothing needs to join it. While several
// such lookups are still unanswered no more are started (gave_up at once). An address (no name)
// is answered at once, without `resolver`.
HostLookup look_up_host(const BrokerAddress& address, std::chrono::steady_clock::time_point deadline,
                        int cancel_fd = -1, Resolver resolver = ::getaddrinfo);

}  // namespace outbox::kafka
