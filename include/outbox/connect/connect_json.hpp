#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "outbox/connect/connect_data.hpp"

namespace outbox::connect {

// Kafka Connect's JsonConverter (schemas.enable) writing the data model. The schema as
// JsonConverter.asJsonSchema writes it: type, then fields (each with "field" last), items or
// keys and values, optional, name, version, doc, parameters, default.
void append_schema_json(std::string& out, const Schema& schema);

// The value as JsonConverter.convertToJson writes it: numbers as Java writes them (a float32 as
// a float), NaN and the infinities as strings, bytes as Base64, a struct as an object of its
// schema's fields, a map with string keys as an object and any other as an array of [key, value].
void append_value_json(std::string& out, const Schema& schema, const Value& value);

// The reverse, as JsonConverter.toConnectData reads a value under a schema: the typed value of
// JSON written by append_value_json (a struct's fields by name, null where absent). Throws
// std::invalid_argument where the JSON does not fit the schema.
Value value_of_json(const Schema& schema, const nlohmann::ordered_json& json);

}  // namespace outbox::connect
