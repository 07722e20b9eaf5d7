#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"

namespace outbox::router {

// JsonConverter with schemas and table.expand.json.payload: the Connect schema Debezium infers
// for an expanded payload (JsonExpansion's output), as JSON. An object is an optional struct
// named after the payload column, nested ones "<name>.<field>"; strings, booleans, int32, int64
// and doubles are optional leaves; arrays are optional arrays of their elements' schema (objects
// merged); a kept null is optional bytes, a kept empty array an array of optional strings.
// nullopt where Debezium cannot infer one (a top-level array, an array mixing schemas).
std::optional<std::string> expanded_payload_schema(std::string_view expanded_json, std::string_view payload_name);

}  // namespace outbox::router
