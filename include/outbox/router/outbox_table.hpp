#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/not_null_fallback.hpp"
#include "outbox/connect/pg_type_resolver.hpp"

namespace outbox::router {

// The position and type of one configured column in a row.
struct BoundColumn {
    std::string_view name;  // the configured name (points into the settings)
    std::size_t index = 0;
    ValueType type = ValueType::text;  // resolved.kind, which the binding rules check
    ColumnType resolved;                // the type resolved (a domain as its base type)
    // From the catalog (Connect schemas only): NOT NULL, and the parsed default.
    bool optional = true;
    std::optional<Value> default_value = std::nullopt;
    const ColumnType& column_type() const { return resolved; }
};

// An outbox table as the server last described it (pgoutput RELATION), or one logical decoding
// message, with the configured Debezium columns resolved to positions. Tables are re-bound on
// every RELATION, because a schema change re-sends it; messages on every message.
struct OutboxTable {
    config::TableName name;  // the table; for messages, schema "" and the prefix
    std::string source;      // InvalidRowError::source: "public.outbox" or "message prefix outbox"
    std::string
        description;  // in errors: `outbox table public.outbox`, `logical decoding message with prefix "outbox"`
    std::string_view column_word = "column";  // "field" for messages
    BoundColumn id;
    BoundColumn key;
    BoundColumn payload;
    BoundColumn route_by;
    std::optional<BoundColumn> timestamp;
    std::optional<BoundColumn> tracing_context;  // tracing.span.context.field, when the row has it
    std::optional<BoundColumn> schema_version;   // table.field.event.schema.version
    // One per settings.additional_fields item, in the same order; nullopt: the row has no such column.
    std::vector<std::optional<BoundColumn>> additional;
    // The replica identity key's columns (the primary key, for REPLICA IDENTITY DEFAULT), as
    // RELATION flags them: Debezium's record key, whose change makes an UPDATE a delete and a create.
    struct KeyColumn {
        std::string name;
        std::size_t index = 0;
        ColumnType type;
        std::optional<Value> default_value = std::nullopt;  // as BoundColumn's, for the key's schema
        // A message.key.columns column may be nullable (a primary key's never is); from the catalog.
        bool optional = false;
        // A NOT NULL column's value where an old key lacks it (outside the replica identity), as
        // Debezium writes it: the schema's default, else the type's fallback; from the catalog.
        std::optional<NotNullFallback> when_absent = std::nullopt;
    };
    std::vector<KeyColumn> key_columns;
    // message.key.columns names them instead: an UPDATE whose old tuple differs in them (a
    // column outside the replica identity is NULL there) changes the key.
    bool custom_key = false;

    static OutboxTable for_table(const config::TableName& name);
    static OutboxTable for_message_prefix(std::string_view prefix);
};

// A configured column the row lacks, or has with a type it cannot be used as.
struct BindProblem {
    enum class Kind { missing, unusable_type };
    Kind kind = Kind::missing;
    std::string column;
    std::string option;  // "outbox.table.field.event.key"
    std::string cause;   // "is missing", "is text, not an integer, so it cannot be a partition"
};

// Resolves the configured columns of `settings` among `columns` into `table`, reusing its
// storage. The required columns and the timestamp column must exist; a partition column must
// be an integer and a timestamp column a timestamp, timestamptz or integer. Missing additional
// columns are recorded, not refused: table.field.additional.missing decides per row.
// Column types resolve through `types` (domains to their base type, arrays to their elements).
std::optional<BindProblem> bind_columns(OutboxTable& table, std::span<const pgoutput::RelationColumn> columns,
                                        const config::OutboxSettings& settings, const PgTypeResolver& types = {});

// bind_columns for a RELATION; a problem is a DefiniteError naming table and column, because
// routing without the column would lose or misroute events.
OutboxTable bind_outbox_table(const config::TableName& name, const pgoutput::Relation& relation,
                              const config::OutboxSettings& settings, const PgTypeResolver& types = {});

}  // namespace outbox::router
