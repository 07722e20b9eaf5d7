#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "outbox/avro/avro_schema.hpp"
#include "outbox/avro/connect_schema_hash.hpp"
#include "outbox/config/config.hpp"
#include "outbox/connect/connect_data.hpp"
#include "outbox/registry/schema_registry_client.hpp"

namespace outbox::router {

// Confluent's AvroConverter for one side of the record (key or value): the Avro schema AvroData
// makes of the Connect schema, its id from the registry under the subject its strategy names,
// and the value in Confluent's wire format. Avro schemas are remembered per Connect schema (by
// its structure: a seen schema costs no serialisation) and ids per (subject, schema), so the
// registry sees one request per distinct schema.
class AvroRecordSide {
public:
    AvroRecordSide(const config::AvroConverterSettings& settings, const config::RecordFormat& format, bool key);

    // The bytes of `value` (a null value is a null record part) written to `out`. Throws
    // avro::AvroNameError and avro::AvroEncodingError (the row's), registry::SchemaRefusedError,
    // TransientError (the registry is unreachable) and DefiniteError (credentials refused).
    std::optional<std::string_view> write(const std::string& topic, const Schema& schema, const Value& value,
                                          std::string& out);

    std::uint64_t registry_requests() const { return registry_.requests(); }

private:
    // What is known of one Connect schema: its Avro schema, and its id under the subject of the
    // topic last written to.
    struct Known {
        std::string avro;
        std::string topic;
        std::int32_t id = -1;
    };
    Known& known(const Schema& schema);
    std::string subject(const std::string& topic, const Schema& schema) const;

    const config::AvroConverterSettings& settings_;
    avro::AvroDataOptions options_;
    bool key_;
    registry::SchemaRegistryClient registry_;
    std::unordered_map<connect::Schema, Known, avro::ConnectSchemaHash> known_;
};

}  // namespace outbox::router
