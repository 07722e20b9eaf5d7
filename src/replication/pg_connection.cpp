#include "outbox/replication/pg_connection.hpp"

#include <vector>

#include "outbox/util/errors.hpp"

namespace outbox::replication {

PgConnection::PgConnection(const std::string& conninfo, Mode mode) {
    std::vector<const char*> keys{"dbname", "fallback_application_name"};
    std::vector<const char*> values{conninfo.c_str(), "outbox-router"};
    if (mode == Mode::logical_replication) {
        keys.push_back("replication");
        values.push_back("database");
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    // expand_dbname=1: the conninfo string supplies every other parameter.
    conn_ = PQconnectdbParams(keys.data(), values.data(), 1);
    if (!conn_) throw TransientError("postgres: out of memory while connecting");
    if (PQstatus(conn_) != CONNECTION_OK) {
        std::string error = last_error();
        PQfinish(conn_);
        conn_ = nullptr;
        // Refused connections, timeouts and a server starting or stopping pass; wrong
        // credentials, a missing role or database, or pg_hba rules do not.
        static constexpr std::string_view kDefinite[] = {"password authentication failed", "no pg_hba.conf entry",
                                                         "does not exist", "permission denied",
                                                         "must be superuser or replication role",
                                                         "invalid connection option", "missing \"=\"",
                                                         "could not translate host name"};
        for (const auto phrase : kDefinite)
            if (error.find(phrase) != std::string::npos) throw DefiniteError("postgres: cannot connect: " + error);
        throw TransientError("postgres: cannot connect: " + error);
    }
}

PgConnection::~PgConnection() {
    if (conn_) PQfinish(conn_);
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

std::string PgConnection::last_error() const { return one_line(conn_ ? PQerrorMessage(conn_) : "no connection"); }

PgResult PgConnection::exec(const std::string& sql, std::string_view what) const {
    PgResult result(PQexec(conn_, sql.c_str()));
    const auto status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_BOTH) return result;
    if (PQstatus(conn_) != CONNECTION_OK)
        throw TransientError("postgres: connection lost during " + std::string(what) + ": " + last_error());
    const char* sqlstate = result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    throw_statement_error(what, sqlstate ? sqlstate : "", last_error());
}

void throw_statement_error(std::string_view what, std::string_view sqlstate, const std::string& message) {
    // 55006 object_in_use: another process streams from the slot (a standby waiting its turn).
    if (sqlstate == "55006" || sqlstate.starts_with("57"))
        throw TransientError("postgres: " + std::string(what) + ": " + message);
    throw DefiniteError("postgres: " + std::string(what) + " failed: " + message);
}

std::string PgConnection::quote_literal(std::string_view text) const {
    char* quoted = PQescapeLiteral(conn_, text.data(), text.size());
    if (!quoted) throw DefiniteError("postgres: cannot quote literal: " + last_error());
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

std::string PgConnection::quote_identifier(std::string_view text) const {
    char* quoted = PQescapeIdentifier(conn_, text.data(), text.size());
    if (!quoted) throw DefiniteError("postgres: cannot quote identifier: " + last_error());
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

}  // namespace outbox::replication
