#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_data.hpp"
#include "outbox/router/outbox_table.hpp"

namespace outbox::router {

// The envelope's Connect schema, a struct of the payload and the envelope placements named
// <topic.prefix>.<schema>.<table>.<route-by value>.Value, as Debezium's EventRouter builds it,
// with its JsonConverter text. Cached as Debezium caches it: by the payload's schema, or by
// version with table.field.event.schema.version, so the first record's schema (and name) serves
// every later record with the same key.
class EnvelopeSchemas {
public:
    struct Envelope {
        SchemaPtr schema;
        std::string json;  // as JsonConverter writes it
    };

    EnvelopeSchemas(const config::OutboxSettings& settings, const config::RecordFormat& format)
        : settings_(settings), format_(format) {}

    // `payload_schema`: an expanded payload's inferred schema, in place of the column's.
    const Envelope& schema_for(const OutboxTable& table, std::string_view route_by, std::optional<std::int64_t> version,
                               const SchemaPtr& payload_schema);

private:
    SchemaPtr column_field(const BoundColumn& column) const;

    const config::OutboxSettings& settings_;
    const config::RecordFormat& format_;
    std::unordered_map<std::string, Envelope> cache_;
    std::string key_;
};

}  // namespace outbox::router
