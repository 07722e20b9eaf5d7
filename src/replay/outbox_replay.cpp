#include "outbox/replay/outbox_replay.hpp"

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "outbox/pgoutput/messages.hpp"
#include "outbox/pipeline/column_catalog_reader.hpp"
#include "outbox/pipeline/type_catalog_reader.hpp"
#include "outbox/replay/replay_publisher.hpp"
#include "outbox/replication/pg_connection.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::replay {
namespace {

using replication::PgConnection;
using replication::PgResult;

std::string value(const PgResult& result, int row, int column) {
    return PQgetisnull(result.get(), row, column) ? std::string() : PQgetvalue(result.get(), row, column);
}

// The table as a RELATION message describes it: every column in attribute order, which is also
// the order of `t.*` in the rows query.
struct TableShape {
    std::uint32_t relid = 0;
    std::vector<std::string> names;
    std::vector<std::uint32_t> type_oids;
    std::vector<std::int32_t> type_modifiers;
};

TableShape read_shape(const PgConnection& connection, const config::TableName& table) {
    const std::string qualified = connection.quote_identifier(table.schema) + "." + connection.quote_identifier(table.name);
    const auto result = connection.exec(
        "SELECT a.attrelid::bigint, a.attname, a.atttypid::bigint, a.atttypmod FROM pg_catalog.pg_attribute a "
        "WHERE a.attrelid = " + connection.quote_literal(qualified) + "::regclass AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum",
        "reading the columns of " + table.qualified());
    TableShape shape;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        shape.relid = static_cast<std::uint32_t>(std::stoul(value(result, row, 0)));
        shape.names.push_back(value(result, row, 1));
        shape.type_oids.push_back(static_cast<std::uint32_t>(std::stoul(value(result, row, 2))));
        shape.type_modifiers.push_back(static_cast<std::int32_t>(std::stol(value(result, row, 3))));
    }
    return shape;
}

// The rows come through a cursor, kBatchRows at a time: memory stays bounded whatever the range.
constexpr int kBatchRows = 1000;
constexpr const char* kCursor = "outbox_replay_rows";

// Every wait for the server ends at a stop.
PgConnection::Wait stoppable(const std::function<bool()>& stopping, int stop_fd) {
    return [stopping, stop_fd](int socket, bool for_write) {
        pollfd fds[2] = {{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {stop_fd, POLLIN, 0}};
        for (;;) {
            if (stopping()) return false;
            const int ready = poll(fds, stop_fd >= 0 ? 2 : 1, -1);
            if (ready > 0 && fds[1].revents == 0) return true;
            if (ready < 0 && errno != EINTR) return true;  // the libpq call that follows reports it
        }
    };
}

// The commit time of the row's transaction, where the server knows it: NULL for a transaction
// committed before track_commit_timestamp was on or older than what it keeps. Raw xmin stays
// the inserting transaction's after freezing; a special xid (a row written by the bootstrap or
// frozen before 9.4) has no commit time and would be an error.
constexpr const char* kCommitTime =
    "(CASE WHEN t.xmin::text::bigint > 2 THEN pg_catalog.pg_xact_commit_timestamp(t.xmin) END)";

}  // namespace

ReplayResult replay(const config::Config& config, const ReplayRange& range,
                    const std::function<void(const std::string&)>& note, const std::function<bool()>& stopping,
                    int stop_fd) {
    if (!range.first_id && !range.last_id && !range.since && !range.until)
        throw DefiniteError("replay: name the events to publish again: --ids FIRST..LAST and/or --since TIME [--until TIME]");
    if (config.kafka.embedded_brokers > 0)
        throw DefiniteError("replay: kafka.embedded.brokers starts a cluster of this process's own; replay needs the real one");
    const PgConnection connection(config.postgres.conninfo, PgConnection::Mode::sql, stoppable(stopping, stop_fd));
    const bool commit_times = value(connection.exec("SHOW track_commit_timestamp", "SHOW track_commit_timestamp"), 0, 0) == "on";
    const bool time_range = range.since || range.until;
    if (time_range && !commit_times)
        throw DefiniteError("replay: a commit-time range needs track_commit_timestamp = on (the rows carry no commit time "
                            "of their own); use --ids, or turn it on for the future (restart required)");
    if (!commit_times)
        note("track_commit_timestamp is off: rows are replayed in transaction-id order, not commit order (transactions "
             "that overlapped may come in another order than the stream sent them, an older event of a key after a "
             "newer one), and records carry the time of the replay, not of the commit (unless "
             "table.field.event.timestamp names a column); turn track_commit_timestamp on for both (restart required)");

    router::OutboxRouter router(config);
    router.set_type_catalog([&conninfo = config.postgres.conninfo](std::uint32_t relid, const config::TableName& table) {
        return pipeline::read_type_catalog(conninfo, relid, table);
    });
    router.set_catalog([&conninfo = config.postgres.conninfo](std::uint32_t relid, const config::TableName& table) {
        return pipeline::read_column_catalog(conninfo, relid, table);
    });
    ReplayPublisher publisher(config, stopping, note);

    // One snapshot for every table; the cursors need a transaction anyway. It stays idle between
    // fetches while Kafka is waited for, which a server-wide idle or transaction timeout must not
    // take for an abandoned session.
    connection.exec("SET idle_in_transaction_session_timeout = 0", "SET idle_in_transaction_session_timeout");
    if (connection.server_version() >= 170000) connection.exec("SET transaction_timeout = 0", "SET transaction_timeout");
    connection.exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", "starting the replay's transaction");
    ReplayResult result;
    for (const auto& table : config.postgres.tables) {
        const auto shape = read_shape(connection, table);
        std::vector<pgoutput::RelationColumn> columns;
        for (std::size_t i = 0; i < shape.names.size(); ++i)
            columns.push_back({0, shape.names[i], shape.type_oids[i], shape.type_modifiers[i]});
        const pgoutput::Relation relation{shape.relid, table.schema, table.name, 'd', columns};
        const auto bound = router.bind(relation);
        if (!bound) throw DefiniteError("replay: " + table.qualified() + " is not an outbox table of this configuration");
        const std::string qualified = connection.quote_identifier(table.schema) + "." + connection.quote_identifier(table.name);
        const std::string id_column = connection.quote_identifier(config.outbox.for_table(table).field_event_id);
        std::string ids = "TRUE";
        if (range.first_id) ids += " AND t." + id_column + " >= " + connection.quote_literal(*range.first_id);
        if (range.last_id) ids += " AND t." + id_column + " <= " + connection.quote_literal(*range.last_id);
        std::string where = ids;
        if (range.since) where += " AND " + std::string(kCommitTime) + " >= " + connection.quote_literal(*range.since) + "::timestamptz";
        if (range.until) where += " AND " + std::string(kCommitTime) + " < " + connection.quote_literal(*range.until) + "::timestamptz";
        // A row whose commit time is unknown cannot be placed in a time range: never left out
        // in silence.
        if (time_range) {
            const auto unknown = std::stoull(value(
                connection.exec("SELECT count(*) FROM " + qualified + " t WHERE " + ids + " AND " + kCommitTime + " IS NULL",
                                "counting the rows of " + table.qualified() + " without a commit time"),
                0, 0));
            if (unknown > 0) {
                note(table.qualified() + ": " + std::to_string(unknown) + " rows have no known commit time (committed "
                     "before track_commit_timestamp was on, or older than the commit times the server keeps), so "
                     "whether they fall in the range cannot be told: they are not replayed; select them by --ids");
                result.unknown_commit_time += unknown;
            }
        }
        const std::string commit_ms =
            commit_times ? "floor(extract(epoch FROM " + std::string(kCommitTime) + ") * 1000)::bigint" : "NULL::bigint";
        // Commit order where the server keeps commit times (rows committed before it did come
        // first), else transaction-id order (age() keeps it across xid wraparound); within a
        // transaction, the rows' physical order.
        const std::string order = commit_times ? std::string(kCommitTime) + " NULLS FIRST, age(t.xmin) DESC, t.ctid"
                                               : "age(t.xmin) DESC, t.ctid";
        connection.exec("DECLARE " + std::string(kCursor) + " NO SCROLL CURSOR FOR SELECT t.xmin::text::bigint, " +
                            commit_ms + ", t.* FROM " + qualified + " t WHERE " + where + " ORDER BY " + order,
                        "reading the rows of " + table.qualified() + " to replay");
        std::vector<pgoutput::ColumnValue> tuple(columns.size());
        std::size_t table_rows = 0;
        for (;;) {
            const auto rows = connection.exec("FETCH FORWARD " + std::to_string(kBatchRows) + " FROM " + kCursor,
                                              "reading the rows of " + table.qualified() + " to replay");
            const int count = PQntuples(rows.get());
            if (count == 0) break;
            const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch()).count();
            for (int row = 0; row < count; ++row) {
                for (std::size_t column = 0; column < tuple.size(); ++column) {
                    const int field = static_cast<int>(column) + 2;
                    tuple[column] = PQgetisnull(rows.get(), row, field)
                                        ? pgoutput::ColumnValue{pgoutput::ValueKind::null, {}}
                                        : pgoutput::ColumnValue{pgoutput::ValueKind::text,
                                                                {PQgetvalue(rows.get(), row, field),
                                                                 static_cast<std::size_t>(PQgetlength(rows.get(), row, field))}};
                }
                const router::TransactionContext context{
                    0, PQgetisnull(rows.get(), row, 1) ? now_ms : std::stoll(value(rows, row, 1)),
                    static_cast<std::uint32_t>(std::stoull(value(rows, row, 0)))};
                ++table_rows;
                publisher.publish(router.route_insert(*bound, tuple, context),
                                  "row " + std::to_string(table_rows) + " of " + table.qualified());
            }
        }
        connection.exec("CLOSE " + std::string(kCursor), "closing the cursor over " + table.qualified());
        result.rows += table_rows;
        note(table.qualified() + ": " + std::to_string(table_rows) + " rows");
    }
    connection.exec("COMMIT", "ending the replay's transaction");
    publisher.finish();
    result.published = publisher.acknowledged();
    return result;
}

}  // namespace outbox::replay
