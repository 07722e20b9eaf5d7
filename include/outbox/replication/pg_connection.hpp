#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace outbox::replication {

struct PgResultDeleter {
    void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, PgResultDeleter>;

struct PgConnDeleter {
    void operator()(PGconn* connection) const { PQfinish(connection); }
};
using PgConnPtr = std::unique_ptr<PGconn, PgConnDeleter>;

struct PgMemoryDeleter {
    void operator()(char* memory) const { PQfreemem(memory); }
};
using PgMemory = std::unique_ptr<char, PgMemoryDeleter>;  // what libpq allocated for the caller

// How a failed statement is reported (`sqlstate` may be empty): TransientError when another
// process holds the slot (55006), a lock_timeout ran out (55P03) or the server is shutting down
// or cancelled it (class 57),
// DefiniteError otherwise.
[[noreturn]] void throw_statement_error(std::string_view what, std::string_view sqlstate, const std::string& message);

// What a failed connection attempt means, from libpq's error text (see the definition for why
// text): worth retrying, definite, or definite because TLS verification of the server failed.
enum class ConnectFailure { transient, definite, certificate };
ConnectFailure classify_connect_failure(std::string_view message);
// For a definite refusal of the role itself (no REPLICATION, no CONNECT, no LOGIN): the grant that
// fixes it, in words a DBA can act on, with a leading space; empty otherwise.
std::string missing_privilege_advice(std::string_view message);

// libpq's multi-line messages ("ERROR: ...\nCONTEXT: ...") as one line for logs and exit causes.
std::string one_line(std::string message);

// One libpq connection, closed on destruction.
class PgConnection {
public:
    enum class Mode { sql, logical_replication };

    // For a caller that must be able to give up (a process or thread told to stop): waits until
    // the socket is readable (or writable, if `for_write`), and returns false to give up, which
    // makes the waiting call throw TransientError. Without one, libpq waits as long as the
    // network does: for ever, behind a server that stopped answering.
    using Wait = std::function<bool(int socket, bool for_write)>;

    // How long a statement's answer is awaited (with a Wait), and who hears about the wait: a
    // server that took a statement and then says nothing (a stalled proxy, a hung backend) must
    // not hold the caller for ever, nor keep it from showing progress.
    struct AnswerWait {
        // Past it without an answer the server is asked, over a side connection, whether it is
        // still working on the statement (running, or waiting for a lock: a new slot waits for
        // the transactions running when it was asked for): then a warning and another `limit`;
        // else (no answer either, or the backend idle or waiting for the client) TransientError.
        // 0: no limit.
        std::chrono::milliseconds limit{0};
        // Called about once a second while an answer is awaited, with what and for how long;
        // false: give up (the waiting call throws TransientError).
        std::function<bool(std::string_view what, std::chrono::milliseconds waited)> waiting;
    };

    // Connects with `conninfo` (key/value or URI). Failure throws TransientError: the server
    // may be starting or briefly unreachable; the caller decides how long to keep trying.
    PgConnection(const std::string& conninfo, Mode mode, Wait wait = {});
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;
    PgConnection(PgConnection&&) noexcept = default;

    PGconn* raw() const { return conn_.get(); }
    int server_version() const { return PQserverVersion(conn_.get()); }

    // Runs one statement with the simple query protocol (the only one a walsender accepts).
    // A failed statement throws DefiniteError with `what` and the server's message, or
    // TransientError if the connection itself is gone.
    // With a Wait, every wait for the server goes through it.
    PgResult exec(const std::string& sql, std::string_view what) const;

    // From now on every statement's answer is awaited as `answer_wait` says (with a Wait).
    void bound_answers(AnswerWait answer_wait) { answer_wait_ = std::move(answer_wait); }

    // Waits until `socket` (this connection's, or a stream's on it) is readable with the answer
    // to `what`, asked at `asked`: through the connection's Wait, bounded and reported as
    // bound_answers() said. False: give up; throws TransientError past the limit.
    bool await_answer(int socket, std::string_view what, std::chrono::steady_clock::time_point asked) const;

    std::string quote_literal(std::string_view text) const;
    std::string quote_identifier(std::string_view text) const;
    std::string last_error() const;

private:
    void check_connected();
    PgResult exec_waiting(const std::string& sql, std::string_view what) const;
    bool wait(int socket, bool for_write) const;
    std::optional<std::string> server_working_on_it() const;
    PgResult checked(PgResult result, std::string_view what) const;
    std::string quoted(char* (*escape)(PGconn*, const char*, std::size_t), std::string_view text,
                       std::string_view what) const;

    PgConnPtr conn_;
    Wait wait_;
    std::string conninfo_;  // for the side connection that asks about a long wait
    AnswerWait answer_wait_;
};

}  // namespace outbox::replication
