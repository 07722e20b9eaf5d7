#include "outbox/kafka/broker_address.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;

struct FreeAddrinfo {
    void operator()(addrinfo* p) const { freeaddrinfo(p); }
};

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::max<long long>(0, left));
}

ConnectOutcome outcome_of_errno(int error) {
    switch (error) {
        case ECONNREFUSED:
            return ConnectOutcome::refused;
        case ETIMEDOUT:
            return ConnectOutcome::timed_out;
        case ENETUNREACH:
        case EHOSTUNREACH:
            return ConnectOutcome::unreachable;
        default:
            return ConnectOutcome::failed;
    }
}

}  // namespace

std::optional<BrokerAddress> parse_broker_address(std::string text) {
    if (const auto scheme = text.find("://"); scheme != std::string::npos) text.erase(0, scheme + 3);
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
    BrokerAddress result{text.substr(0, colon), text.substr(colon + 1)};
    if (result.host.size() >= 2 && result.host.front() == '[' && result.host.back() == ']')
        result.host = result.host.substr(1, result.host.size() - 2);
    return result;
}

std::vector<std::string> bootstrap_entries(const std::string& bootstrap_servers) {
    std::vector<std::string> entries;
    std::size_t start = 0;
    while (start <= bootstrap_servers.size()) {
        const auto end = std::min(bootstrap_servers.find(',', start), bootstrap_servers.size());
        std::string entry = bootstrap_servers.substr(start, end - start);
        start = end + 1;
        entry.erase(0, entry.find_first_not_of(" \t"));
        entry.erase(entry.find_last_not_of(" \t") + 1);
        if (!entry.empty()) entries.push_back(std::move(entry));
    }
    return entries;
}

bool wait_for_socket(int fd, short events, Clock::time_point deadline, int cancel_fd) {
    pollfd entries[2] = {{fd, events, 0}, {cancel_fd, POLLIN, 0}};
    int ready;
    do ready = ::poll(entries, 2, remaining_ms(deadline));
    while (ready < 0 && errno == EINTR);
    return ready > 0 && entries[1].revents == 0 && entries[0].revents != 0;
}

TcpConnection connect_tcp(const BrokerAddress& address, Clock::time_point deadline, int cancel_fd) {
    TcpConnection result;
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* raw = nullptr;
    if (const int lookup = getaddrinfo(address.host.c_str(), address.port.c_str(), &hints, &raw); lookup != 0) {
        result.outcome = lookup == EAI_NONAME || lookup == EAI_FAIL
#ifdef EAI_NODATA
                                 || lookup == EAI_NODATA
#endif
                             ? ConnectOutcome::host_not_found
                             : ConnectOutcome::lookup_failed;
        result.error = lookup;
        return result;
    }
    const std::unique_ptr<addrinfo, FreeAddrinfo> addresses(raw);
    result.outcome = ConnectOutcome::timed_out;
    for (const addrinfo* candidate = raw; candidate && remaining_ms(deadline) > 0; candidate = candidate->ai_next) {
        FileDescriptor socket(::socket(candidate->ai_family, candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                                       candidate->ai_protocol));
        if (!socket.valid()) continue;
        int error = 0;
        if (::connect(socket.get(), candidate->ai_addr, candidate->ai_addrlen) == 0) {
            result.outcome = ConnectOutcome::connected;
            result.socket = std::move(socket);
            return result;
        }
        if (errno != EINPROGRESS) {
            error = errno;
        } else if (!wait_for_socket(socket.get(), POLLOUT, deadline, cancel_fd)) {
            result.outcome = ConnectOutcome::timed_out;
            continue;
        } else {
            socklen_t length = sizeof error;
            if (getsockopt(socket.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
        }
        if (error == 0) {
            result.outcome = ConnectOutcome::connected;
            result.socket = std::move(socket);
            return result;
        }
        result.outcome = outcome_of_errno(error);
        result.error = error;
    }
    return result;
}

std::string describe(ConnectOutcome outcome, int error) {
    switch (outcome) {
        case ConnectOutcome::connected:
            return "accepts connections";
        case ConnectOutcome::host_not_found:
            return "host not found (the name does not resolve)";
        case ConnectOutcome::lookup_failed:
            return std::string("host name lookup failed (") + gai_strerror(error) + ")";
        case ConnectOutcome::refused:
            return "connection refused (the host answers, but nothing listens on that port)";
        case ConnectOutcome::timed_out:
            return "connection timed out (a firewall dropping packets, or a host that is down)";
        case ConnectOutcome::unreachable:
            return std::string("unreachable (") + std::strerror(error) + ": no route to it from here)";
        case ConnectOutcome::failed:
            break;
    }
    return std::string("cannot connect (") + std::strerror(error) + ")";
}

}  // namespace outbox::kafka
