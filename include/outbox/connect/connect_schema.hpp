#pragma once

#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_value.hpp"

namespace outbox::connect {

// JsonConverter with schemas: appends a column's Connect schema as JSON, as Debezium's
// connector declares it in `modes` (type, its logical type's name, version and parameters),
// with `optional` from the column's NOT NULL and `default_json` its parsed default, if any, in
// the key order JsonConverter writes.
void append_connect_schema(std::string& out, const ColumnType& type, const config::ValueModes& modes, bool optional,
                           const std::optional<std::string>& default_json);

}  // namespace outbox::connect
