#include "outbox/replication/socket_transport.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "outbox/util/errors.hpp"

namespace outbox::replication {

StreamTransport::Received SocketTransport::receive(std::span<char> into) {
    for (;;) {
        const ssize_t read = recv(fd_, into.data(), into.size(), MSG_DONTWAIT);
        if (read > 0) return {static_cast<std::size_t>(read), static_cast<std::size_t>(read), std::nullopt};
        if (read == 0) return {0, 0, "the server closed the connection"};
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
        return {0, 0, std::strerror(errno)};
    }
}

bool SocketTransport::flush() {
    std::size_t sent = 0;
    while (sent < output_.size()) {
        const ssize_t written = send(fd_, output_.data() + sent, output_.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (written > 0) {
            sent += static_cast<std::size_t>(written);
        } else if (written == 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
            break;
        } else if (errno != EINTR) {
            throw TransientError(std::string("postgres: cannot write to the replication connection: ") +
                                 std::strerror(errno));
        }
    }
    output_.erase(0, sent);
    return output_.empty();
}

}  // namespace outbox::replication
