#include "outbox/router/envelope_schemas.hpp"

#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"

namespace outbox::router {

SchemaPtr EnvelopeSchemas::column_field(const BoundColumn& column) const {
    return std::make_shared<Schema>(
        column_schema(column.column_type(), format_.modes, column.optional, column.default_value));
}

const EnvelopeSchemas::Envelope& EnvelopeSchemas::schema_for(const OutboxTable& table, std::string_view route_by,
                                                             std::optional<std::int64_t> version,
                                                             const SchemaPtr& payload_schema) {
    const SchemaPtr payload = payload_schema ? payload_schema : column_field(table.payload);
    key_.clear();
    if (version) key_ = "version " + std::to_string(*version);
    else append_schema_json(key_, *payload);
    auto [cached, inserted] = cache_.try_emplace(key_);
    if (!inserted) return cached->second;
    auto envelope = std::make_shared<Schema>();
    envelope->type = Schema::Type::structure;
    envelope->fields.push_back({"payload", payload});
    for (std::size_t i = 0; i < table.additional.size(); ++i) {
        const config::AdditionalField& field = settings_.additional_fields[i];
        if (field.placement != config::Placement::envelope || !table.additional[i]) continue;
        envelope->fields.push_back({field.alias, column_field(*table.additional[i])});
    }
    envelope->name =
        format_.topic_prefix + "." + table.name.schema + "." + table.name.name + "." + std::string(route_by) + ".Value";
    if (version) envelope->version = static_cast<std::int32_t>(*version);
    cached->second.schema = envelope;
    append_schema_json(cached->second.json, *envelope);
    return cached->second;
}

}  // namespace outbox::router
