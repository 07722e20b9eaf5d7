#include "outbox/kafka/tcp_connect.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "outbox/kafka/host_lookup.hpp"
#include "outbox/kafka/socket_wait.hpp"

namespace outbox::kafka {
namespace {

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

TcpConnection connect_tcp(const BrokerAddress& address, std::chrono::steady_clock::time_point deadline, int cancel_fd) {
    TcpConnection result;
    HostLookup lookup = look_up_host(address, deadline, cancel_fd);
    if (lookup.gave_up) {
        result.outcome = ConnectOutcome::lookup_timed_out;
        return result;
    }
    if (lookup.error != 0) {
        result.outcome = lookup.error == EAI_NONAME || lookup.error == EAI_FAIL
#ifdef EAI_NODATA
                                 || lookup.error == EAI_NODATA
#endif
                             ? ConnectOutcome::host_not_found
                             : ConnectOutcome::lookup_failed;
        result.error = lookup.error;
        return result;
    }
    result.outcome = ConnectOutcome::timed_out;
    for (const addrinfo* candidate = lookup.addresses.get();
         candidate && std::chrono::steady_clock::now() < deadline; candidate = candidate->ai_next) {
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
        case ConnectOutcome::lookup_timed_out:
            return "host name lookup timed out (the DNS servers, or another source in /etc/nsswitch.conf, did not answer)";
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
