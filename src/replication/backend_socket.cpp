#include "outbox/replication/backend_socket.hpp"

#include <poll.h>

#include <algorithm>
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

}  // namespace

BackendSocket::BackendSocket(std::unique_ptr<StreamTransport> transport)
    : transport_(std::move(transport)), input_(kInitialBuffer) {}

std::optional<BackendMessage> BackendSocket::next_message() {
    for (;;) {
        const std::span<const char> unread(input_.data() + begin_, end_ - begin_);
        const std::size_t size = backend_message_size(unread);
        if (size != 0 && size <= unread.size()) {
            begin_ += size;
            return BackendMessage{unread[0], unread.subspan(kBackendHeaderSize, size - kBackendHeaderSize)};
        }
        // Room for the whole of a message larger than the buffer (room() moves it to the front).
        if (size > input_.size()) input_.resize(std::max(size, input_.size() * 2));
        if (!transport_->holds_input()) break;
        const auto held = transport_->take_held(room());
        end_ += held.placed;
        if (held.lost) lost_ = held.lost;
    }
    if (lost_) lost();
    return std::nullopt;
}

std::size_t BackendSocket::receive() {
    if (lost_) lost();
    std::size_t taken = 0;
    for (;;) {
        auto got = transport_->receive(room());
        taken += got.socket_bytes;
        end_ += got.placed;
        if (got.lost) {
            lost_ = std::move(got.lost);
            // What came before the end is handed out first; next_message() reports the end after it.
            if (taken == 0 && got.placed == 0) lost();
            return taken;
        }
        if (got.socket_bytes == 0 || end_ <= kReadAgainAbove || input_.size() - end_ < kMinFreeSpace) return taken;
    }
}

// The free end of the buffer, after moving the unread bytes to its front; at least
// kMinFreeSpace, growing the buffer if need be.
std::span<char> BackendSocket::room() {
    if (begin_ > 0) {
        std::memmove(input_.data(), input_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    if (input_.size() - end_ < kMinFreeSpace) input_.resize(input_.size() * 2);
    return {input_.data() + end_, input_.size() - end_};
}

void BackendSocket::lost() const { throw TransientError("postgres: replication connection lost: " + *lost_); }

void BackendSocket::write(std::span<const char> bytes) {
    transport_->write(bytes);
    flush();
}

bool BackendSocket::flush() { return transport_->flush(); }

void BackendSocket::flush_within(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!flush()) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            throw TransientError("postgres: the replication connection took nothing for " +
                                 std::to_string(limit.count()) + " ms");
        pollfd socket{fd(), POLLOUT, 0};
        if (poll(&socket, 1, static_cast<int>(left.count())) < 0 && errno != EINTR)
            throw TransientError(std::string("poll: ") + std::strerror(errno));
    }
}

}  // namespace outbox::replication
