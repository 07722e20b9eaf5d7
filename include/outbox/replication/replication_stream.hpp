#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>

#include "outbox/replication/backend_socket.hpp"
#include "outbox/replication/pg_connection.hpp"
#include "outbox/replication/read_pacer.hpp"
#include "outbox/replication/wal_stream.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::replication {

// The CopyBoth stream of START_REPLICATION on a replication=database connection. Reading is
// non-blocking so one thread can also serve Kafka; the caller waits on socket().
//
// The stream is read and written on the socket directly (BackendSocket), without libpq's copy of
// every message: as it is on an unencrypted connection, through OpenSSL over TLS (TlsTransport).
// Over GSSAPI encryption only libpq can, so it does, and one read is as many PQconsumeInput calls
// as ReadPacer::read_again asks for.
class ReplicationStream final : public WalStream {
public:
    explicit ReplicationStream(PgConnection connection);
    ReplicationStream(const ReplicationStream&) = delete;
    ReplicationStream& operator=(const ReplicationStream&) = delete;
    ~ReplicationStream();

    // START_REPLICATION SLOT ... LOGICAL 0/0: the server resumes from the slot's confirmed position.
    // Protocol 1 (no in-progress streaming: transactions arrive whole, in commit order) and, on
    // PostgreSQL 14+, logical decoding messages.
    void start(const std::string& slot, const std::string& publication, int server_version);

    // The next frame already received, or nullopt when the socket must be waited on. The span
    // stays valid until the next call of next_frame() or receive(). Throws TransientError when the connection is lost and
    // DefiniteError when the server ends the stream with an error.
    std::optional<std::span<const char>> next_frame() override;

    // Reads what the socket has into the input buffer (call when socket() is readable, after
    // next_frame() has returned every frame of the previous read). Reads are paced by ReadPacer:
    // one starts at least its interval after the previous one (sleeping for the rest if need be),
    // so a server streaming many small messages is read in batches rather than with one wake-up
    // and a few system calls per message. Caught up (`draining_backlog` false) that adds at most
    // 50 us to the latency of data arriving right after a read.
    void receive(bool draining_backlog);

    // Throws TransientError if the server has closed the connection, without reading anything:
    // a read would return the data the server sent before closing and see the close only after
    // it, so a backlog could hide for a long time that this walsender is gone.
    void check_connected() const override;
    int socket() const { return PQsocket(connection_.raw()); }

    void send_status_update(Lsn written, Lsn flushed, bool reply_requested) override;

    // Pushes out what a non-blocking write left behind.
    void flush_output() override;

    // Ends the copy cleanly (after the last status update), waiting at most 5 s for the socket to
    // take it; throws TransientError if it did not.
    void finish() override;

private:
    [[noreturn]] void libpq_stream_ended();
    void consume_input();
    bool consume();
    void start_direct(const std::string& command, const std::string& what, bool tls);
    std::optional<std::span<const char>> next_direct_frame();
    void release_buffer();

    PgConnection connection_;
    std::optional<BackendSocket> direct_;  // set when the stream goes around libpq; goes before connection_
    char* buffer_ = nullptr;               // libpq's copy of the last frame otherwise
    std::optional<std::string> lost_;      // libpq's read failed: why, once the frames before it are out
    std::chrono::steady_clock::time_point last_read_{};
    ReadPacer pacer_;
    // What the last read brought, for the pacer: the socket's bytes around libpq, the frames'
    // bytes that next_frame() took since through libpq.
    std::size_t last_read_bytes_ = 0;
};

}  // namespace outbox::replication
