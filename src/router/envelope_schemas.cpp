#include "outbox/router/envelope_schemas.hpp"

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_schema.hpp"

namespace outbox::router {

void EnvelopeSchemas::append_field(std::string& out, const BoundColumn& column, std::string_view field) const {
    append_connect_schema(out, column.column_type(), format_.modes, column.optional, column.default_json);
    out.pop_back();
    out += ",\"field\":";
    append_json_string(out, field);
    out += '}';
}

void EnvelopeSchemas::append_payload(std::string& out, const OutboxTable& table,
                                     std::optional<std::string_view> payload_schema) const {
    if (!payload_schema) {
        append_field(out, table.payload, "payload");
        return;
    }
    out += payload_schema->substr(0, payload_schema->size() - 1);
    out += ",\"field\":\"payload\"}";
}

std::string_view EnvelopeSchemas::schema_for(const OutboxTable& table, std::string_view route_by,
                                             std::optional<std::int64_t> version,
                                             std::optional<std::string_view> payload_schema) {
    key_.clear();
    if (version) {
        key_ = "version " + std::to_string(*version);
    } else {
        append_payload(key_, table, payload_schema);
    }
    auto [cached, inserted] = cache_.try_emplace(key_);
    if (!inserted) return cached->second;
    std::string& schema = cached->second;
    schema = "{\"type\":\"struct\",\"fields\":[";
    append_payload(schema, table, payload_schema);
    for (std::size_t i = 0; i < table.additional.size(); ++i) {
        const config::AdditionalField& field = settings_.additional_fields[i];
        if (field.placement != config::Placement::envelope || !table.additional[i]) continue;
        schema += ',';
        append_field(schema, *table.additional[i], field.alias);
    }
    schema += "],\"optional\":false,\"name\":";
    append_json_string(schema, format_.topic_prefix + "." + table.name.schema + "." + table.name.name + "." +
                                   std::string(route_by) + ".Value");
    if (version) schema += ",\"version\":" + std::to_string(*version);
    schema += '}';
    return schema;
}

}  // namespace outbox::router
