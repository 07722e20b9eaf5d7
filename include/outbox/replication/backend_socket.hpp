#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/replication/stream_transport.hpp"

namespace outbox::replication {

// A connection read and written in protocol messages, around libpq, over a StreamTransport (the
// socket itself, or TLS on it). The replication stream uses it once libpq has connected and run
// every statement before START_REPLICATION: libpq's PQgetCopyData allocates and copies every
// CopyData message, which with one-row transactions (three messages per event) was an eighth of
// the router's instructions. Reads are sized as libpq's are (a 16 KiB buffer that grows only for
// a message larger than it), so the walsender sees the same reader.
class BackendSocket {
public:
    explicit BackendSocket(std::unique_ptr<StreamTransport> transport);
    BackendSocket(const BackendSocket&) = delete;
    BackendSocket& operator=(const BackendSocket&) = delete;

    int fd() const { return transport_->fd(); }

    // The next whole message received, or nullopt once none is left. Its body stays valid until
    // the next call or receive(). Throws TransientError once the messages that came before the
    // end of the connection are out.
    std::optional<BackendMessage> next_message();

    // One read of what the socket holds (two or more only once the buffer has grown past 32 KiB,
    // as libpq does for long messages); returns the bytes taken from the socket. Throws
    // TransientError when the connection has ended and the read brought nothing before the end.
    std::size_t receive();

    // Queues `bytes` and sends what the socket takes now.
    void write(std::span<const char> bytes);

    // Sends what is queued without waiting; true once nothing is left. Throws TransientError.
    bool flush();

    // Sends what is queued, waiting for the socket up to `limit`. Throws TransientError.
    void flush_within(std::chrono::milliseconds limit);

private:
    std::span<char> room();
    [[noreturn]] void lost() const;

    std::unique_ptr<StreamTransport> transport_;
    std::vector<char> input_;
    std::size_t begin_ = 0;  // of the unread bytes in input_
    std::size_t end_ = 0;
    std::optional<std::string> lost_;  // why the connection ended, once it has
};

}  // namespace outbox::replication
