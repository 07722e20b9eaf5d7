#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace outbox::replication {

// The bytes of a connection under BackendSocket's protocol messages: the socket's own
// (SocketTransport), or the plaintext of the TLS records on it (TlsTransport).
class StreamTransport {
public:
    // What one call brought.
    struct Received {
        std::size_t socket_bytes = 0;     // taken from the socket
        std::size_t placed = 0;           // bytes of the stream put into the caller's span
        std::optional<std::string> lost;  // the connection ended after those bytes: why
    };

    StreamTransport() = default;
    StreamTransport(const StreamTransport&) = delete;
    StreamTransport& operator=(const StreamTransport&) = delete;
    virtual ~StreamTransport() = default;

    virtual int fd() const = 0;

    // One read of the socket, into `into` (not empty), without waiting.
    virtual Received receive(std::span<char> into) = 0;

    // True when earlier reads brought bytes that did not fit the span they were given (TLS
    // records that arrived whole): take_held() hands them out, and no socket readiness would
    // announce them.
    virtual bool holds_input() const = 0;
    // Those bytes, as many as fit `into`; reads nothing from the socket.
    virtual Received take_held(std::span<char> into) = 0;

    // Queues `bytes` for the server; flush() sends them. Throws TransientError.
    virtual void write(std::span<const char> bytes) = 0;
    // Sends what is queued without waiting; true once nothing is left. Throws TransientError.
    virtual bool flush() = 0;
    // Bytes queued and not sent yet.
    virtual std::size_t unsent() const = 0;
};

}  // namespace outbox::replication
