#include "outbox/replication/backend_socket.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "outbox/util/errors.hpp"

namespace outbox::replication {
namespace {

// libpq's starting input buffer, the free space it makes sure of before each read, and the
// fill above which it reads again at once (fe-misc.c, pqReadData).
constexpr std::size_t kInitialBuffer = 16384;
constexpr std::size_t kMinFreeSpace = 8192;
constexpr std::size_t kReadAgainAbove = 32768;

[[noreturn]] void connection_lost(const std::string& why) {
    throw TransientError("postgres: replication connection lost: " + why);
}

}  // namespace

BackendSocket::BackendSocket(int fd) : fd_(fd), input_(kInitialBuffer) {}

std::optional<BackendMessage> BackendSocket::next_message() {
    const std::span<const char> unread(input_.data() + begin_, end_ - begin_);
    const std::size_t size = backend_message_size(unread);
    if (size == 0 || size > unread.size()) {
        // Room for the whole of a message larger than the buffer (receive() moves it to the front).
        if (size > input_.size()) input_.resize(std::max(size, input_.size() * 2));
        return std::nullopt;
    }
    begin_ += size;
    return BackendMessage{unread[0], unread.subspan(kBackendHeaderSize, size - kBackendHeaderSize)};
}

void BackendSocket::receive() {
    if (begin_ > 0) {
        std::memmove(input_.data(), input_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    if (input_.size() - end_ < kMinFreeSpace) input_.resize(input_.size() * 2);
    bool received = false;
    for (;;) {
        const ssize_t read = recv(fd_, input_.data() + end_, input_.size() - end_, MSG_DONTWAIT);
        if (read > 0) {
            end_ += static_cast<std::size_t>(read);
            received = true;
            if (end_ > kReadAgainAbove && input_.size() - end_ >= kMinFreeSpace) continue;
            return;
        }
        // What came before a close or an error is handed out first; the next read reports it.
        if (received) return;
        if (read == 0) connection_lost("the server closed the connection");
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        connection_lost(std::strerror(errno));
    }
}

void BackendSocket::write(std::span<const char> bytes) {
    output_.append(bytes.data(), bytes.size());
    flush();
}

bool BackendSocket::flush() {
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

void BackendSocket::flush_within(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!flush()) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            throw TransientError("postgres: the replication connection took nothing for " +
                                 std::to_string(limit.count()) + " ms");
        pollfd socket{fd_, POLLOUT, 0};
        if (poll(&socket, 1, static_cast<int>(left.count())) < 0 && errno != EINTR)
            throw TransientError(std::string("poll: ") + std::strerror(errno));
    }
}

}  // namespace outbox::replication
