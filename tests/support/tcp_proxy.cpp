#include "tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace outbox::test {
namespace {

int connect_to(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool write_all(int fd, const char* data, ssize_t size) {
    while (size > 0) {
        const ssize_t written = ::write(fd, data, static_cast<std::size_t>(size));
        if (written <= 0) return false;
        data += written;
        size -= written;
    }
    return true;
}

struct Link {
    int client = -1;
    int server = -1;  // -1 while held (accepted during a stall)
    std::string held;  // what the client sent that stall_at() held back
};

}  // namespace

TcpProxy::TcpProxy(int target_port) : target_port_(target_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int yes = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        throw std::runtime_error("TcpProxy: cannot listen on a loopback port");
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { run(); });
}

TcpProxy::~TcpProxy() {
    stopping_ = true;
    thread_.join();
    ::close(listener_);
}

void TcpProxy::stall_at(std::string text) {
    const std::lock_guard lock(trigger_mutex_);
    trigger_ = std::move(text);
}

bool TcpProxy::holds_trigger(std::string_view chunk) {
    const std::lock_guard lock(trigger_mutex_);
    if (trigger_.empty() || chunk.find(trigger_) == std::string_view::npos) return false;
    trigger_.clear();
    return true;
}

void TcpProxy::run() {
    std::vector<Link> links;
    char buffer[65536];
    while (!stopping_) {
        const bool stalled = stalled_;
        if (!stalled)
            for (auto& link : links) {
                if (link.server < 0 && (link.server = connect_to(target_port_)) < 0) {
                    ::close(link.client);
                    link.client = -1;
                }
                if (link.client >= 0 && !link.held.empty()) {
                    write_all(link.server, link.held.data(), static_cast<ssize_t>(link.held.size()));
                    link.held.clear();
                }
            }
        std::erase_if(links, [](const Link& l) { return l.client < 0; });
        std::vector<pollfd> fds{{listener_, POLLIN, 0}};
        if (!stalled)
            for (const auto& link : links) {
                fds.push_back({link.client, POLLIN, 0});
                fds.push_back({link.server, POLLIN, 0});
            }
        if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
        if (fds[0].revents & POLLIN) {
            const int client = ::accept(listener_, nullptr, nullptr);
            if (client >= 0) links.push_back({client, -1, {}});
        }
        for (std::size_t i = 1; i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Link& link = links[(i - 1) / 2];
            if (link.client < 0) continue;
            const bool from_client = i % 2 == 1;
            const ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
            if (got > 0 && from_client && holds_trigger(std::string_view(buffer, static_cast<std::size_t>(got)))) {
                link.held.assign(buffer, static_cast<std::size_t>(got));
                stalled_ = true;
                break;
            }
            if (got > 0 && write_all(from_client ? link.server : link.client, buffer, got)) continue;
            ::close(link.client);
            ::close(link.server);
            link.client = link.server = -1;
        }
    }
    for (const auto& link : links) {
        if (link.client >= 0) ::close(link.client);
        if (link.server >= 0) ::close(link.server);
    }
}

}  // namespace outbox::test
