#pragma once

#include <openssl/types.h>

#include <memory>

#include "outbox/replication/stream_transport.hpp"

namespace outbox::replication {

struct BioDeleter {
    void operator()(BIO* bio) const;
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

// The plaintext of a TLS connection whose records travel over `socket`: the router's own reads
// of the socket, sized as on a plain connection, so that the walsender sees the same reader.
//
// The TLS connection is libpq's (PQsslStruct): libpq made it with its own socket BIO for reading
// and writing, and frees it at PQfinish after a close_notify. While this object lives, OpenSSL
// reads and writes memory BIOs instead: what the socket brings is handed to the read BIO and
// every record that arrived whole is decrypted; what the router writes is encrypted into the
// write BIO, whose bytes go to the socket through `socket`'s queue. A memory BIO takes any
// amount, so SSL_write always encrypts everything at once and never asks to be retried with the
// same arguments: a socket that takes only part of it leaves the rest of the ciphertext queued.
// The destructor puts libpq's BIO back (a reference to it is held meanwhile), so that libpq's
// Terminate and close_notify go out as without this object; it must go before the connection.
class TlsTransport final : public StreamTransport {
public:
    // Throws ProtocolError if OpenSSL holds input already (libpq would have read ahead): from
    // here on every byte of the socket is this object's.
    TlsTransport(SSL* tls, std::unique_ptr<StreamTransport> socket);
    ~TlsTransport() override;

    int fd() const override { return socket_->fd(); }
    Received receive(std::span<char> into) override;
    bool holds_input() const override { return held_; }
    Received take_held(std::span<char> into) override;
    void write(std::span<const char> bytes) override;
    bool flush() override { return socket_->flush(); }
    std::size_t unsent() const override { return socket_->unsent(); }

private:
    Received decrypt(std::span<char> into);
    void queue_output();

    SSL* tls_;
    std::unique_ptr<StreamTransport> socket_;
    BioPtr saved_read_;      // the BIOs tls_ had (libpq's socket BIO): put back at the end
    BioPtr saved_write_;
    BIO* input_ = nullptr;   // the memory BIOs installed in tls_, which owns them
    BIO* output_ = nullptr;
    bool held_ = false;      // the last decryption filled its span: whole records may be left
};

}  // namespace outbox::replication
