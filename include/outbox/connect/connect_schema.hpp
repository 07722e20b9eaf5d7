#pragma once

#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_data.hpp"
#include "outbox/connect/connect_value.hpp"

namespace outbox::connect {

// A column's Connect schema as Debezium's connector declares it in `modes` (type, its logical
// type's name, version and parameters), with `optional` from the column's NOT NULL and
// `default_value` its parsed default, if any.
Schema column_schema(const ColumnType& type, const config::ValueModes& modes, bool optional,
                     std::optional<Value> default_value);

// The type alone, without building the schema.
Schema::Type column_schema_type(const ColumnType& type, const config::ValueModes& modes);

// JsonConverter with schemas: appends the column's schema as JSON (connect_json.hpp).
void append_connect_schema(std::string& out, const ColumnType& type, const config::ValueModes& modes, bool optional,
                           const std::optional<Value>& default_value);

}  // namespace outbox::connect
