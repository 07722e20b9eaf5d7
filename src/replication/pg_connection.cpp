#include "outbox/replication/pg_connection.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "outbox/config/conninfo.hpp"
#include "outbox/replication/connection_settings.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::replication {

namespace {

// What PQconnectdbParams and PQconnectStartParams take: `conninfo` expanded (expand_dbname=1)
// supplies every parameter but these.
struct ConnectParameters {
    std::vector<const char*> keys;
    std::vector<const char*> values;

    ConnectParameters(const std::string& conninfo, PgConnection::Mode mode)
        : keys{"dbname", "fallback_application_name"}, values{conninfo.c_str(), "outbox-router"} {
        if (mode == PgConnection::Mode::logical_replication) {
            keys.push_back("replication");
            values.push_back("database");
        }
        keys.push_back(nullptr);
        values.push_back(nullptr);
    }
};

}  // namespace

PgConnection::PgConnection(const std::string& conninfo, Mode mode, Wait wait)
    : wait_(std::move(wait)), conninfo_(conninfo) {
    // libpq's message about a connection string it cannot read quotes the string, password
    // included. postgres.conninfo is checked at load (config/conninfo.hpp); this covers any other.
    if (!config::libpq_reads(conninfo))
        throw DefiniteError("postgres: cannot connect: libpq cannot read the connection string (its message is "
                            "left out: it quotes the string, which may hold a password)");
    const ConnectParameters parameters(conninfo, mode);
    if (!wait_) {
        conn_.reset(PQconnectdbParams(parameters.keys.data(), parameters.values.data(), 1));
        check_connected();
        return;
    }
    conn_.reset(PQconnectStartParams(parameters.keys.data(), parameters.values.data(), 1));
    if (conn_ && PQstatus(conn_.get()) != CONNECTION_BAD) {
        // libpq's documented loop: wait as PQconnectPoll last asked, starting as if it asked to write.
        for (auto polling = PGRES_POLLING_WRITING; polling != PGRES_POLLING_OK && polling != PGRES_POLLING_FAILED;
             polling = PQconnectPoll(conn_.get())) {
            if (!wait_(PQsocket(conn_.get()), polling == PGRES_POLLING_WRITING))
                throw TransientError("postgres: stopped while connecting");
        }
    }
    check_connected();
}

void PgConnection::check_connected() {
    if (!conn_) throw TransientError("postgres: out of memory while connecting");
    if (PQstatus(conn_.get()) != CONNECTION_OK) {
        const std::string error = last_error();
        conn_.reset();
        switch (classify_connect_failure(error)) {
            case ConnectFailure::certificate:
                throw DefiniteError("postgres: cannot connect: TLS certificate verification failed: " + error +
                                    " (check sslrootcert, the server's certificate and its host names)");
            case ConnectFailure::definite:
                throw DefiniteError("postgres: cannot connect: " + error + missing_privilege_advice(error));
            case ConnectFailure::transient:
                break;
        }
        throw TransientError("postgres: cannot connect: " + error);
    }
}

// A failed connection reaches the caller as libpq's error text only: the server's ErrorResponse
// during start-up is not handed out as a result (no SQLSTATE), and the TLS verdict (OpenSSL's
// verify result) is freed with the connection. So these phrases, as libpq 15-18 and the server
// word them, are the only signal, and they are matched here and nowhere else.
// What a DBA grants when the server refused the role itself, by the same texts (server 15-18).
std::string missing_privilege_advice(std::string_view message) {
    if (message.find("must be superuser or replication role") != std::string_view::npos ||
        message.find("permission denied to start WAL sender") != std::string_view::npos)
        return " (the role needs the REPLICATION attribute: ALTER ROLE <role> REPLICATION)";
    if (message.find("permission denied for database") != std::string_view::npos)
        return " (the role needs CONNECT on the database: GRANT CONNECT ON DATABASE <database> TO <role>)";
    if (message.find("is not permitted to log in") != std::string_view::npos)
        return " (the role needs LOGIN: ALTER ROLE <role> LOGIN)";
    return "";
}

ConnectFailure classify_connect_failure(std::string_view message) {
    // The server's certificate failed the client's verification (sslmode verify-ca/verify-full):
    // an unknown CA, an expired certificate, another host name.
    static constexpr std::string_view kCertificate[] = {"certificate verify failed", "does not match host name",
                                                        "could not get server's host name from server certificate",
                                                        "server certificate for"};
    // Refused credentials, a missing role or database, pg_hba rules, the client's own TLS files,
    // a server refusing the client's certificate, a server without TLS when it is required.
    static constexpr std::string_view kDefinite[] = {"password authentication failed", "no pg_hba.conf entry",
                                                     "does not exist", "permission denied",
                                                     "must be superuser or replication role",
                                                     "invalid connection option", "missing \"=\"",
                                                     "could not translate host name",
                                                     "certificate authentication failed",
                                                     "connection requires a valid client certificate",
                                                     "could not read root certificate file",
                                                     "could not load private key file", "could not open certificate file",
                                                     "could not read certificate file", "has group or world access",
                                                     "certificate present, but not private key",
                                                     "alert unknown ca", "alert bad certificate",
                                                     "alert certificate", "server does not support SSL",
                                                     "password is required but none was provided",
                                                     "is not permitted to log in",
                                                     "fe_sendauth: no password supplied"};
    for (const auto phrase : kCertificate)
        if (message.find(phrase) != std::string_view::npos) return ConnectFailure::certificate;
    for (const auto phrase : kDefinite)
        if (message.find(phrase) != std::string_view::npos) return ConnectFailure::definite;
    return ConnectFailure::transient;
}

std::string one_line(std::string message) {
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    std::string line;
    for (const char c : message) {
        if (c == '\n') line += "; ";
        else if (c != '\t') line += c;
    }
    return line;
}

std::string PgConnection::last_error() const { return one_line(conn_ ? PQerrorMessage(conn_.get()) : "no connection"); }

PgResult PgConnection::exec(const std::string& sql, std::string_view what) const {
    if (wait_) return exec_waiting(sql, what);
    return checked(PgResult(PQexec(conn_.get(), sql.c_str())), what);
}

bool PgConnection::wait(int socket, bool for_write) const {
    if (wait_) return wait_(socket, for_write);
    pollfd ready{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
    while (poll(&ready, 1, -1) < 0)
        if (errno != EINTR) return false;
    return true;
}

// How often a bounded wait for an answer reports it, and sees a stop.
constexpr auto kAnswerSlice = std::chrono::seconds(1);
// The side connection asking what a statement waits for: all of it, connecting included.
constexpr auto kServerViewLimit = std::chrono::seconds(10);
constexpr const char* kServerViewStatementTimeout = "5000";

bool PgConnection::await_answer(int socket, std::string_view what, std::chrono::steady_clock::time_point asked) const {
    if (!answer_wait_.waiting && answer_wait_.limit.count() <= 0) return wait(socket, false);
    auto limit_at = asked + answer_wait_.limit;
    for (;;) {
        pollfd readable{socket, POLLIN, 0};
        const int ready = poll(&readable, 1, static_cast<int>(std::chrono::milliseconds(kAnswerSlice).count()));
        // Readable (or an error the libpq call that follows reports): the connection's Wait
        // returns at once, or gives up for a stop.
        if (ready > 0 || (ready < 0 && errno != EINTR)) return wait(socket, false);
        const auto now = std::chrono::steady_clock::now();
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - asked);
        if (answer_wait_.waiting && !answer_wait_.waiting(what, waited)) return false;
        if (answer_wait_.limit.count() <= 0 || now < limit_at) continue;
        const auto working = server_working_on_it();
        if (!working)
            throw TransientError("postgres: no answer to " + std::string(what) + " within " +
                                 std::to_string(waited.count()) + " ms (postgres.receive.timeout.ms), and the server "
                                 "does not say it is working on it: it, or the network path to it, stopped answering");
        log::warn("postgres: " + std::string(what) + " has waited " + std::to_string(waited.count() / 1000) +
                  " s; the server is working on it (" + *working + "); waiting on");
        limit_at = now + answer_wait_.limit;
    }
}

// What this connection's backend is doing, as the server's own view (pg_stat_activity) says,
// when it is still working on the statement: running, or waiting for anything but the client
// (a lock another transaction holds: a new slot waits for the transactions running when it was
// asked for). Asked over a side connection whose every wait is bounded, since a server or path
// that stopped answering answers this no better; any failure is "not working".
std::optional<std::string> PgConnection::server_working_on_it() const {
    const auto deadline = std::chrono::steady_clock::now() + kServerViewLimit;
    const auto bounded = [&](int socket, bool for_write) {
        for (;;) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) throw TransientError("postgres: the server did not say what the statement waits for");
            const auto slice = std::min<std::chrono::steady_clock::duration>(deadline - now, kAnswerSlice);
            pollfd ready{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
            const int n = poll(&ready, 1, static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
            if (n > 0 || (n < 0 && errno != EINTR)) return true;
            if (answer_wait_.waiting && !answer_wait_.waiting("the server's view of a statement", {})) return false;
        }
    };
    try {
        const PgConnection side(side_conninfo(conninfo_, "outbox-router-wait-check"), Mode::sql, bounded);
        const auto result = side.exec(
            std::string("SET statement_timeout = ") + kServerViewStatementTimeout +
                "; SELECT coalesce(wait_event_type || ': ' || wait_event, 'running') FROM pg_catalog.pg_stat_activity "
                "WHERE pid = " + std::to_string(PQbackendPID(conn_.get())) +
                " AND state = 'active' AND wait_event_type IS DISTINCT FROM 'Client'",
            "asking the server what a statement waits for");
        if (PQntuples(result.get()) != 1) return std::nullopt;
        return std::string(PQgetvalue(result.get(), 0, 0));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// PQexec, with its waits made here.
PgResult PgConnection::exec_waiting(const std::string& sql, std::string_view what) const {
    const auto give_up = [&] {
        throw TransientError("postgres: stopped while waiting for " + std::string(what));
    };
    const auto asked = std::chrono::steady_clock::now();
    if (PQsetnonblocking(conn_.get(), 1) != 0 || PQsendQuery(conn_.get(), sql.c_str()) != 1) return checked(nullptr, what);
    for (int unsent; (unsent = PQflush(conn_.get())) != 0;) {
        if (unsent < 0) return checked(nullptr, what);
        if (!wait_(PQsocket(conn_.get()), true)) give_up();
    }
    // The last result is the statement's (a simple query of one statement gives one, then null).
    PgResult last;
    for (;;) {
        while (PQisBusy(conn_.get())) {
            if (!await_answer(PQsocket(conn_.get()), what, asked)) give_up();
            if (PQconsumeInput(conn_.get()) == 0) return checked(nullptr, what);
        }
        PgResult result(PQgetResult(conn_.get()));
        if (!result) break;
        const auto status = PQresultStatus(result.get());
        last = std::move(result);
        // As PQexec: a copy has begun (START_REPLICATION), and libpq would hand out its result
        // again and again.
        if (status == PGRES_COPY_BOTH || status == PGRES_COPY_IN || status == PGRES_COPY_OUT) break;
    }
    return checked(std::move(last), what);
}

PgResult PgConnection::checked(PgResult result, std::string_view what) const {
    const auto status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_BOTH) return result;
    if (PQstatus(conn_.get()) != CONNECTION_OK)
        throw TransientError("postgres: connection lost during " + std::string(what) + ": " + last_error());
    const char* sqlstate = result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    throw_statement_error(what, sqlstate ? sqlstate : "", last_error());
}

void throw_statement_error(std::string_view what, std::string_view sqlstate, const std::string& message) {
    // 55006 object_in_use: another process streams from the slot (a standby waiting its turn);
    // 55P03 lock_not_available: lock_timeout ran out behind another session's lock.
    if (sqlstate == "55006" || sqlstate == "55P03" || sqlstate.starts_with("57"))
        throw TransientError("postgres: " + std::string(what) + ": " + message);
    throw DefiniteError("postgres: " + std::string(what) + " failed: " + message);
}

std::string PgConnection::quoted(char* (*escape)(PGconn*, const char*, std::size_t), std::string_view text,
                                 std::string_view what) const {
    const PgMemory quoted(escape(conn_.get(), text.data(), text.size()));
    if (!quoted) throw DefiniteError("postgres: cannot quote " + std::string(what) + ": " + last_error());
    return quoted.get();
}

std::string PgConnection::quote_literal(std::string_view text) const { return quoted(PQescapeLiteral, text, "literal"); }

std::string PgConnection::quote_identifier(std::string_view text) const {
    return quoted(PQescapeIdentifier, text, "identifier");
}

}  // namespace outbox::replication
