#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "outbox/config/config.hpp"
#include "outbox/router/outbox_table.hpp"

namespace outbox::router {

// JsonConverter with schemas: the envelope's Connect schema, a struct of the payload and the
// envelope placements named <topic.prefix>.<schema>.<table>.<route-by value>.Value, as
// Debezium's EventRouter builds it. Cached as Debezium caches it: by the payload's schema, or by
// version with table.field.event.schema.version, so the first record's schema (and name) serves
// every later record with the same key.
class EnvelopeSchemas {
public:
    EnvelopeSchemas(const config::OutboxSettings& settings, const config::RecordFormat& format)
        : settings_(settings), format_(format) {}

    // `payload_schema`: an expanded payload's inferred schema, in place of the column's.
    std::string_view schema_for(const OutboxTable& table, std::string_view route_by, std::optional<std::int64_t> version,
                                std::optional<std::string_view> payload_schema);

private:
    void append_field(std::string& out, const BoundColumn& column, std::string_view field) const;
    void append_payload(std::string& out, const OutboxTable& table, std::optional<std::string_view> payload_schema) const;

    const config::OutboxSettings& settings_;
    const config::RecordFormat& format_;
    std::unordered_map<std::string, std::string> cache_;
    std::string key_;
};

}  // namespace outbox::router
