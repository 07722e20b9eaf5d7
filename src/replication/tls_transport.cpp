#include "outbox/replication/tls_transport.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <new>
#include <string>

#include "outbox/util/errors.hpp"

namespace outbox::replication {
namespace {

// What OpenSSL says went wrong, worded as libpq words it ("SSL error: ..."). Called right after
// the failed call, whose error queue was empty before it. The last error is TLS's own verdict
// (a bad record), the first may be the cipher's ("cipher operation failed").
std::string tls_failure(int code) {
    const unsigned long error = ERR_peek_last_error();
    ERR_clear_error();
    const char* const reason = error != 0 ? ERR_reason_error_string(error) : nullptr;
    if (reason) return std::string("SSL error: ") + reason;
    return "SSL error code " + std::to_string(code);
}

}  // namespace

void BioDeleter::operator()(BIO* bio) const { BIO_free(bio); }

TlsTransport::TlsTransport(SSL* tls, std::unique_ptr<StreamTransport> socket) : tls_(tls), socket_(std::move(socket)) {
    // libpq does not read ahead: its last read ended with the ReadyForQuery of the last statement
    // it ran, and the server sends nothing more before the next one. So neither libpq's buffer
    // nor OpenSSL's holds anything of the server's.
    if (SSL_has_pending(tls_) == 1)
        throw ProtocolError("postgres: the TLS connection holds input that no statement asked for");
    BIO* const read = SSL_get_rbio(tls_);
    BIO* const write = SSL_get_wbio(tls_);
    if (!read || !write) throw DefiniteError("postgres: libpq's TLS connection has no socket BIO");
    BioPtr input(BIO_new(BIO_s_mem()));
    BioPtr output(BIO_new(BIO_s_mem()));
    if (!input || !output) throw std::bad_alloc();
    // libpq set one BIO for both directions (SSL_set_bio(tls, bio, bio): two references, one
    // per direction). Each SSL_set0_* below drops the reference of its direction, so one is
    // taken for each first; the destructor hands them back.
    BIO_up_ref(read);
    saved_read_.reset(read);
    BIO_up_ref(write);
    saved_write_.reset(write);
    input_ = input.get();
    output_ = output.get();
    SSL_set0_rbio(tls_, input.release());
    SSL_set0_wbio(tls_, output.release());
}

TlsTransport::~TlsTransport() {
    // Records that never reach the server would make everything libpq sends after them
    // unreadable (their sequence numbers): then it sends nothing more, not even close_notify.
    if (socket_->unsent() > 0) SSL_set_shutdown(tls_, SSL_get_shutdown(tls_) | SSL_SENT_SHUTDOWN);
    SSL_set0_rbio(tls_, saved_read_.release());
    SSL_set0_wbio(tls_, saved_write_.release());
}

StreamTransport::Received TlsTransport::receive(std::span<char> into) {
    Received arrived = socket_->receive(into);
    std::size_t taken = 0;
    if (arrived.placed > 0 && (BIO_write_ex(input_, into.data(), arrived.placed, &taken) != 1 || taken != arrived.placed))
        throw std::bad_alloc();
    Received decrypted = decrypt(into);
    decrypted.socket_bytes = arrived.socket_bytes;
    if (!decrypted.lost) decrypted.lost = std::move(arrived.lost);
    return decrypted;
}

StreamTransport::Received TlsTransport::take_held(std::span<char> into) { return held_ ? decrypt(into) : Received{}; }

// Every record that is whole, as far as `into` has room. A record's start without its end stays
// in OpenSSL: the socket brings the rest, and its readiness announces it.
StreamTransport::Received TlsTransport::decrypt(std::span<char> into) {
    Received got;
    ERR_clear_error();
    while (got.placed < into.size()) {
        std::size_t read = 0;
        if (SSL_read_ex(tls_, into.data() + got.placed, into.size() - got.placed, &read) == 1) {
            got.placed += read;
            continue;
        }
        const int code = SSL_get_error(tls_, 0);
        if (code == SSL_ERROR_ZERO_RETURN) {
            got.lost = "the server closed the connection";  // its close_notify
        } else if (code != SSL_ERROR_WANT_READ) {
            got.lost = tls_failure(code);  // a corrupt record, the server's alert
        }
        break;
    }
    held_ = got.placed == into.size() && !got.lost;
    // Reading can make OpenSSL answer (the alert that ends a connection on a bad record): it goes
    // out with the next flush.
    queue_output();
    return got;
}

void TlsTransport::write(std::span<const char> bytes) {
    ERR_clear_error();
    std::size_t written = 0;
    if (!bytes.empty() && SSL_write_ex(tls_, bytes.data(), bytes.size(), &written) != 1)
        throw TransientError("postgres: cannot write to the replication connection: " +
                             tls_failure(SSL_get_error(tls_, 0)));
    queue_output();
}

void TlsTransport::queue_output() {
    char chunk[4096];
    std::size_t read = 0;
    while (BIO_read_ex(output_, chunk, sizeof chunk, &read) == 1 && read > 0) socket_->write({chunk, read});
}

}  // namespace outbox::replication
