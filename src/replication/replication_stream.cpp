#include "outbox/replication/replication_stream.hpp"

#include <poll.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/replication/socket_transport.hpp"
#include "outbox/replication/tls_transport.hpp"
#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/type_byte.hpp"

namespace outbox::replication {
namespace {

std::int64_t postgres_now_us() {
    const auto unix_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    return unix_us - kPostgresEpochUnixMicros;
}

// The server ended the stream with an error: class 57 is a shutdown or a cancellation.
[[noreturn]] void throw_stream_error(std::string_view sqlstate, const std::string& message) {
    if (sqlstate.starts_with("57")) throw TransientError("postgres: replication stream ended: " + message);
    throw DefiniteError("postgres: replication stream ended with an error: " + message +
                        " (the slot was not confirmed past it; see the runbook in docs/operations.md)");
}

// Bytes received on the socket and not yet read (0 if the kernel cannot say).
std::size_t queued_on_socket(int fd) {
    int queued = 0;
    return ioctl(fd, FIONREAD, &queued) == 0 && queued > 0 ? static_cast<std::size_t>(queued) : 0;
}

}  // namespace

ReplicationStream::ReplicationStream(PgConnection connection) : connection_(std::move(connection)) {}

ReplicationStream::~ReplicationStream() { release_buffer(); }

void ReplicationStream::release_buffer() {
    if (buffer_) PQfreemem(buffer_);
    buffer_ = nullptr;
}

void ReplicationStream::start(const std::string& slot, const std::string& publication, int server_version) {
    std::string options = "proto_version '1', publication_names " +
                          connection_.quote_literal(connection_.quote_identifier(publication));
    if (server_version >= 140000) options += ", messages 'true'";
    // The walsender prints values in this session's settings. The router reads ISO dates,
    // postgres-style intervals and floats in their exact shortest form; and in UTC the same row
    // gives the same bytes whatever zone the server or role is set to (Debezium's temporal
    // values are UTC too).
    connection_.exec("SET DateStyle = ISO", "SET DateStyle");
    connection_.exec("SET TimeZone = 'UTC'", "SET TimeZone");
    connection_.exec("SET IntervalStyle = postgres", "SET IntervalStyle");
    connection_.exec("SET extra_float_digits = 3", "SET extra_float_digits");
    const std::string command =
        "START_REPLICATION SLOT " + connection_.quote_identifier(slot) + " LOGICAL 0/0 (" + options + ")";
    const std::string what = "START_REPLICATION on slot " + slot;
    // GSSAPI encryption keeps its buffers inside libpq.
    const bool tls = PQsslInUse(connection_.raw()) == 1;
    if (tls && !PQsslStruct(connection_.raw(), "OpenSSL"))
        throw DefiniteError("postgres: this libpq encrypts with a TLS library other than OpenSSL, which the "
                            "replication stream cannot read; use a libpq built with OpenSSL");
    if (PQgssEncInUse(connection_.raw()) != 1) {
        start_direct(command, what, tls);
        return;
    }
    connection_.exec(command, what);
    if (PQsetnonblocking(connection_.raw(), 1) != 0)
        throw TransientError("postgres: cannot switch the replication connection to non-blocking mode");
}

// libpq has finished every statement it ran, so nothing of the server's is left in its buffer
// (nor in OpenSSL's, which TlsTransport checks): from the Query on, every byte on the socket is
// the stream's.
void ReplicationStream::start_direct(const std::string& command, const std::string& what, bool tls) {
    std::unique_ptr<StreamTransport> transport = std::make_unique<SocketTransport>(PQsocket(connection_.raw()));
    if (tls)
        transport = std::make_unique<TlsTransport>(static_cast<SSL*>(PQsslStruct(connection_.raw(), "OpenSSL")),
                                                   std::move(transport));
    auto& socket = direct_.emplace(std::move(transport));
    const auto asked = std::chrono::steady_clock::now();
    socket.write(encode_query(command));
    for (;;) {
        socket.flush();
        while (const auto message = socket.next_message()) {
            switch (message->type) {
                case 'W':  // CopyBothResponse: the stream has begun
                    return;
                case 'E': {
                    const auto error = parse_server_message(message->body);
                    throw_statement_error(what, error.sqlstate, error.text());
                }
                case 'N':  // NoticeResponse, ParameterStatus: nothing the router acts on
                case 'S':
                    break;
                default:
                    throw ProtocolError("postgres: " + what + " was answered with message type " +
                                        type_byte_text(message->type));
            }
        }
        if (!connection_.await_answer(socket.fd(), what, asked))
            throw TransientError("postgres: stopped while waiting for " + what);
        socket.receive();
    }
}

std::optional<std::span<const char>> ReplicationStream::next_frame() {
    if (direct_) return next_direct_frame();
    release_buffer();
    const int length = PQgetCopyData(connection_.raw(), &buffer_, 1);
    if (length > 0) {
        last_read_bytes_ += static_cast<std::size_t>(length);
        return std::span<const char>(buffer_, static_cast<std::size_t>(length));
    }
    if (length == 0 && lost_) throw TransientError(*lost_);
    if (length == 0) return std::nullopt;
    libpq_stream_ended();
}

std::optional<std::span<const char>> ReplicationStream::next_direct_frame() {
    while (const auto message = direct_->next_message()) {
        switch (message->type) {
            case 'd':  // CopyData: one walsender frame
                return message->body;
            case 'E': {
                const auto error = parse_server_message(message->body);
                throw_stream_error(error.sqlstate, error.text());
            }
            case 'c':  // CopyDone
            case 'C':  // CommandComplete: a walsender stopping for a server shutdown sends only this
            case 'Z':
                throw TransientError("postgres: the server ended the replication stream");
            case 'N':  // NoticeResponse, ParameterStatus, NotificationResponse: ignored, as libpq does
            case 'S':
            case 'A':
                break;
            default:
                throw ProtocolError("postgres: message type " + type_byte_text(message->type) +
                                    " in the replication stream");
        }
    }
    return std::nullopt;
}

void ReplicationStream::receive(bool draining_backlog) {
    pacer_.after_read(last_read_bytes_, draining_backlog);
    last_read_bytes_ = 0;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_read_ < pacer_.interval()) {
        std::this_thread::sleep_for(pacer_.interval() - (now - last_read_));
        last_read_ = std::chrono::steady_clock::now();
    } else {
        last_read_ = now;
    }
    if (direct_) {
        direct_->flush();
        // The pacer judges whether a read filled the buffer, and reads are sized in socket bytes:
        // counted decrypted, a full read over TLS would look short by the records' overhead (the
        // walsender makes a record of every message).
        last_read_bytes_ = direct_->receive();
    } else {
        consume_input();
    }
}

// See ReadPacer::read_again. GSSAPI encryption reads one packet of the socket per call and keeps
// what it decrypted inside libpq, where nothing can ask: a read ends with the socket's data, and
// then one more call, because libpq keeps the part of a packet (at most 16 KiB) its input buffer
// had no room for (it keeps 8 KiB or more free), and no socket readiness would announce it.
void ReplicationStream::consume_input() {
    const int fd = socket();
    std::size_t queued = queued_on_socket(fd);
    std::size_t consumed = 0;
    if (!consume()) throw TransientError(*lost_);
    for (;;) {
        const std::size_t left = queued_on_socket(fd);
        if (left < queued) consumed += queued - left;
        queued = left;
        if (!ReadPacer::read_again(consumed, queued)) break;
        if (!consume()) return;
    }
    if (queued == 0) consume();
}

// One PQconsumeInput. A failure is remembered rather than thrown: what libpq read before it is
// handed out first (libpq keeps it), and next_frame() reports the failure after it.
bool ReplicationStream::consume() {
    if (PQconsumeInput(connection_.raw()) != 0) return true;
    if (!lost_) lost_ = "postgres: replication connection lost: " + connection_.last_error();
    return false;
}

void ReplicationStream::check_connected() const {
    // POLLRDHUP: the server's FIN has arrived, whatever is still queued before it.
    pollfd connection{socket(), POLLRDHUP, 0};
    const int ready = poll(&connection, 1, 0);
    if (ready < 0 && errno != EINTR) throw TransientError(std::string("poll: ") + std::strerror(errno));
    if (ready > 0 && (connection.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
        throw TransientError("postgres: replication connection lost: the server closed it");
}

void ReplicationStream::libpq_stream_ended() {
    // The server's error is in libpq's buffer even when the connection failed right after it
    // (libpq keeps what it read); without one, a lost connection is what ended the stream.
    const bool connected = PQstatus(connection_.raw()) == CONNECTION_OK;
    PgResult result(PQgetResult(connection_.raw()));
    const char* sqlstate = result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (result && PQresultStatus(result.get()) == PGRES_FATAL_ERROR && (connected || sqlstate))
        throw_stream_error(sqlstate ? sqlstate : "", one_line(PQresultErrorMessage(result.get())));
    if (!connected)
        throw TransientError(lost_.value_or("postgres: replication connection lost: " + connection_.last_error()));
    throw TransientError("postgres: the server ended the replication stream");
}

void ReplicationStream::send_status_update(Lsn written, Lsn flushed, bool reply_requested) {
    const auto frame = encode_status_update(written, flushed, flushed, postgres_now_us(), reply_requested);
    if (direct_) {
        direct_->write(encode_copy_data(frame));
        return;
    }
    if (PQputCopyData(connection_.raw(), frame.data(), static_cast<int>(frame.size())) != 1 ||
        PQflush(connection_.raw()) < 0)
        throw TransientError("postgres: cannot send status update: " + connection_.last_error());
}

void ReplicationStream::flush_output() {
    if (direct_) {
        direct_->flush();
        return;
    }
    if (PQflush(connection_.raw()) < 0)
        throw TransientError("postgres: cannot write to the replication connection: " + connection_.last_error());
}

void ReplicationStream::finish() {
    // The last status update goes out with the CopyDone. A peer that takes nothing for this long
    // is not waited for: the slot is then confirmed less far, and a stop is never held up.
    constexpr auto kLimit = std::chrono::seconds(5);
    if (direct_) {
        direct_->write(kCopyDone);
        direct_->flush_within(kLimit);
        return;
    }
    release_buffer();
    const auto deadline = std::chrono::steady_clock::now() + kLimit;
    int unsent = PQputCopyEnd(connection_.raw(), nullptr) == 1 ? PQflush(connection_.raw()) : -1;
    for (; unsent == 1 && std::chrono::steady_clock::now() < deadline; unsent = PQflush(connection_.raw())) {
        pollfd writable{socket(), POLLOUT, 0};
        poll(&writable, 1, 100);
    }
    if (unsent != 0)
        throw TransientError("postgres: cannot end the replication stream: " +
                             (unsent == 1 ? "the connection took nothing for 5 s" : connection_.last_error()));
}

}  // namespace outbox::replication
