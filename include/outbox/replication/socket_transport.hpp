#pragma once

#include <string>

#include "outbox/replication/stream_transport.hpp"

namespace outbox::replication {

// A connection's socket, read and written without waiting. The socket stays its owner's
// (libpq's): it is not closed here.
class SocketTransport final : public StreamTransport {
public:
    explicit SocketTransport(int fd) : fd_(fd) {}

    int fd() const override { return fd_; }
    Received receive(std::span<char> into) override;
    bool holds_input() const override { return false; }
    Received take_held(std::span<char>) override { return {}; }
    void write(std::span<const char> bytes) override { output_.append(bytes.data(), bytes.size()); }
    bool flush() override;
    std::size_t unsent() const override { return output_.size(); }

private:
    int fd_;
    std::string output_;
};

}  // namespace outbox::replication
