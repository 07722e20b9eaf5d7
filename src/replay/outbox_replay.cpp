#include "outbox/replay/outbox_replay.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "outbox/kafka/producer.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/pipeline/column_catalog_reader.hpp"
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

}  // namespace

ReplayResult replay(const config::Config& config, const ReplayRange& range,
                    const std::function<void(const std::string&)>& note) {
    if (!range.first_id && !range.last_id && !range.since && !range.until)
        throw DefiniteError("replay: name the events to publish again: --ids FIRST..LAST and/or --since TIME [--until TIME]");
    if (config.kafka.embedded_brokers > 0)
        throw DefiniteError("replay: kafka.embedded.brokers starts a cluster of this process's own; replay needs the real one");
    const PgConnection connection(config.postgres.conninfo, PgConnection::Mode::sql);
    const bool commit_times = value(connection.exec("SHOW track_commit_timestamp", "SHOW track_commit_timestamp"), 0, 0) == "on";
    if ((range.since || range.until) && !commit_times)
        throw DefiniteError("replay: a commit-time range needs track_commit_timestamp = on (the rows carry no commit time "
                            "of their own); use --ids, or turn it on for the future (restart required)");
    if (!commit_times)
        note("track_commit_timestamp is off: records carry the time of the replay, not of the commit "
             "(unless table.field.event.timestamp names a column)");

    router::OutboxRouter router(config);
    if (config.format.key_schemas || config.format.value_schemas || config.format.header_schemas)
        router.set_catalog([&conninfo = config.postgres.conninfo](std::uint32_t relid, const config::TableName& table) {
            return pipeline::read_column_catalog(conninfo, relid, table);
        });
    std::size_t acknowledged = 0;
    std::string refused;
    kafka::Producer producer(config.kafka, "", [&](const kafka::DeliveryReport& report) {
        if (report.error == RD_KAFKA_RESP_ERR_NO_ERROR) ++acknowledged;
        else if (refused.empty()) refused = "topic \"" + std::string(report.topic) + "\": " + rd_kafka_err2str(report.error);
    });

    ReplayResult result;
    for (const auto& table : config.postgres.tables) {
        const auto shape = read_shape(connection, table);
        std::vector<pgoutput::RelationColumn> columns;
        for (std::size_t i = 0; i < shape.names.size(); ++i)
            columns.push_back({0, shape.names[i], shape.type_oids[i], shape.type_modifiers[i]});
        const pgoutput::Relation relation{shape.relid, table.schema, table.name, 'd', columns};
        const auto bound = router.bind(relation);
        if (!bound) throw DefiniteError("replay: " + table.qualified() + " is not an outbox table of this configuration");
        const std::string id_column = connection.quote_identifier(config.outbox.for_table(table).field_event_id);
        std::string where = "TRUE";
        if (range.first_id) where += " AND t." + id_column + " >= " + connection.quote_literal(*range.first_id);
        if (range.last_id) where += " AND t." + id_column + " <= " + connection.quote_literal(*range.last_id);
        if (range.since)
            where += " AND pg_catalog.pg_xact_commit_timestamp(t.xmin) >= " + connection.quote_literal(*range.since) + "::timestamptz";
        if (range.until)
            where += " AND pg_catalog.pg_xact_commit_timestamp(t.xmin) < " + connection.quote_literal(*range.until) + "::timestamptz";
        const std::string commit_time =
            commit_times ? "floor(extract(epoch FROM pg_catalog.pg_xact_commit_timestamp(t.xmin)) * 1000)::bigint" : "NULL::bigint";
        // Commit order, then the order rows were written within a transaction.
        const auto rows = connection.exec(
            "SELECT t.xmin::text::bigint, " + commit_time + ", t.* FROM " + connection.quote_identifier(table.schema) + "." +
                connection.quote_identifier(table.name) + " t WHERE " + where + " ORDER BY 2, t.xmin::text::bigint, t.ctid",
            "reading the rows of " + table.qualified() + " to replay");
        const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count();
        std::vector<pgoutput::ColumnValue> tuple(columns.size());
        for (int row = 0; row < PQntuples(rows.get()); ++row) {
            for (std::size_t column = 0; column < tuple.size(); ++column) {
                const int field = static_cast<int>(column) + 2;
                tuple[column] = PQgetisnull(rows.get(), row, field)
                                    ? pgoutput::ColumnValue{pgoutput::ValueKind::null, {}}
                                    : pgoutput::ColumnValue{pgoutput::ValueKind::text,
                                                            {PQgetvalue(rows.get(), row, field),
                                                             static_cast<std::size_t>(PQgetlength(rows.get(), row, field))}};
            }
            const router::TransactionContext context{
                0, commit_times && !PQgetisnull(rows.get(), row, 1) ? std::stoll(value(rows, row, 1)) : now_ms,
                static_cast<std::uint32_t>(std::stoull(value(rows, row, 0)))};
            const auto record = router.route_insert(*bound, tuple, context);
            if (const auto error = producer.produce(record, result.rows); error != RD_KAFKA_RESP_ERR_NO_ERROR)
                throw DefiniteError("replay: Kafka refused the event of row " + std::to_string(row + 1) + " of " +
                                    table.qualified() + " (topic \"" + std::string(record.topic) + "\"): " +
                                    rd_kafka_err2str(error));
            ++result.rows;
            producer.serve(0);
            if (!refused.empty()) break;
        }
        note(table.qualified() + ": " + std::to_string(PQntuples(rows.get())) + " rows");
    }
    while (refused.empty() && producer.outstanding() > 0 && !producer.flush(1000)) {
    }
    producer.serve(0);
    if (!refused.empty()) throw DefiniteError("replay: delivery failed: " + refused);
    result.published = acknowledged;
    return result;
}

}  // namespace outbox::replay
