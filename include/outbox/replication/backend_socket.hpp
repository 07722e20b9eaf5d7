#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "outbox/replication/backend_messages.hpp"

namespace outbox::replication {

// A connection's socket read and written in protocol messages, around libpq. The replication
// stream uses it once libpq has connected and run every statement before START_REPLICATION:
// libpq's PQgetCopyData allocates and copies every CopyData message, which with one-row
// transactions (three messages per event) was an eighth of the router's instructions. Reads
// are sized as libpq's are (a 16 KiB buffer that grows only for a message larger than it), so
// the walsender sees the same reader. The socket stays libpq's: it is not closed here.
class BackendSocket {
public:
    explicit BackendSocket(int fd);
    BackendSocket(const BackendSocket&) = delete;
    BackendSocket& operator=(const BackendSocket&) = delete;

    int fd() const { return fd_; }

    // The next whole message received, or nullopt. Its body stays valid until receive().
    std::optional<BackendMessage> next_message();

    // One read of what the socket holds (two or more only once the buffer has grown past 32 KiB,
    // as libpq does for long messages). Throws TransientError when the server has closed the
    // connection or the read fails.
    void receive();

    // Queues `bytes` and sends what the socket takes now.
    void write(std::span<const char> bytes);

    // Sends what is queued without waiting; true once nothing is left. Throws TransientError.
    bool flush();

    // Sends what is queued, waiting for the socket up to `limit`. Throws TransientError.
    void flush_within(std::chrono::milliseconds limit);

private:
    int fd_;
    std::vector<char> input_;
    std::size_t begin_ = 0;  // of the unread bytes in input_
    std::size_t end_ = 0;
    std::string output_;
};

}  // namespace outbox::replication
