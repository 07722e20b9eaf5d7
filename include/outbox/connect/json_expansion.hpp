#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_data.hpp"

namespace outbox::connect {

// Debezium's table.expand.json.payload: the payload text parsed and written back as compact
// JSON, as Kafka Connect's JsonConverter writes the Struct Debezium makes of it with the schema it
// infers (expanded_schema.hpp): fields whose value has no schema (null, []) left out, objects in
// one array given every field any of them has (null where one has none), in the schema's order.
// Where Debezium infers no schema, or its record fails, the payload is not expanded, except that
// for JSON without Connect schemas (`free_shapes`) arrays mixing types, values that do not fit
// the merged schema and a top-level array are expanded all the same, each object keeping its own
// fields: without schemas nothing needs arrays to be homogeneous.
struct JsonExpansion {
    config::JsonNullBehavior nulls = config::JsonNullBehavior::ignore;
    config::JsonEmptyArrayBehavior empty_arrays = config::JsonEmptyArrayBehavior::ignore;
    // Expand what Debezium infers no schema for. Only where the result is JSON without schemas:
    // Connect's schemas need homogeneous arrays, and Struct.toString() text is read by no parser
    // that would gain from it, so there Debezium's bytes (the payload kept) win.
    bool free_shapes = true;

    // Writes the expanded document to `out` and, when `schema` is given, the inferred Connect
    // schema (its struct named `payload_name`) to `schema` (shapes are then never free). Returns
    // why it cannot (the caller keeps the payload as it was, as Debezium does).
    std::optional<std::string> expand(std::string_view text, std::string& out, std::string_view payload_name = "payload",
                                      SchemaPtr* schema = nullptr) const;

private:
    bool has_kept_empty_name(const nlohmann::ordered_json& value) const;
};

}  // namespace outbox::connect
