#include "outbox/pipeline/column_catalog_reader.hpp"

#include <poll.h>

#include <cerrno>
#include <chrono>

#include "outbox/pipeline/shutdown_signal.hpp"
#include "outbox/replication/connection_settings.hpp"
#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::pipeline {
namespace {

const std::string kLockTimeout = std::to_string(kCatalogLockTimeoutMs);
const std::string kStatementTimeout = std::to_string(kCatalogStatementTimeoutMs);


// Beyond the statement timeout the server is not answering at all.
constexpr auto kAnswerLimit = std::chrono::milliseconds(kCatalogStatementTimeoutMs + 5000);

}  // namespace

std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, std::uint32_t relid,
                                                       const config::TableName& table) {
    const std::string what = "reading the columns of " + table.qualified();
    const auto deadline = std::chrono::steady_clock::now() + kAnswerLimit;
    // Every wait of this connection, connecting included: a shutdown request ends it (the pipe
    // stays readable once written), and so does the deadline; EINTR only polls again.
    const auto wait = [&](int socket, bool for_write) {
        pollfd fds[2] = {{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {ShutdownSignal::fd(), POLLIN, 0}};
        for (;;) {
            if (ShutdownSignal::requested()) return false;
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0)
                throw TransientError("postgres: " + what + ": no answer within " +
                                     std::to_string(kAnswerLimit.count()) + " ms");
            const int ready = poll(fds, 2, static_cast<int>(left.count()));
            if (ready > 0 && fds[1].revents == 0) return true;
            if (ready < 0 && errno != EINTR) return true;  // the libpq call that follows reports it
        }
    };
    const replication::PgConnection connection(replication::side_conninfo(conninfo, "outbox-router-column-catalog"),
                                               replication::PgConnection::Mode::sql, wait);
    // One round trip: the settings apply to the SELECT that follows them in the same query.
    const auto result = connection.exec(
        "SET lock_timeout = " + kLockTimeout + "; SET statement_timeout = " + kStatementTimeout +
            "; SELECT a.attname, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), pg_get_expr(d.adbin, d.adrelid) "
            "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
            "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
            "WHERE a.attrelid = " + std::to_string(relid) + "::oid AND a.attnum > 0 AND NOT a.attisdropped "
            "ORDER BY a.attnum",
        what);
    std::vector<router::CatalogColumn> columns;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        router::CatalogColumn column{PQgetvalue(result.get(), row, 0), PQgetvalue(result.get(), row, 1)[0] == 't', {}};
        if (!PQgetisnull(result.get(), row, 2)) column.default_expression = PQgetvalue(result.get(), row, 2);
        columns.push_back(std::move(column));
    }
    return columns;
}

}  // namespace outbox::pipeline
