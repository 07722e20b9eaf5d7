#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_data.hpp"

namespace outbox::connect {

// The Connect schema Debezium's EventRouter infers for a payload it expands
// (table.expand.json.payload), and the value it then makes of the document. Debezium's rules:
//  - strings, booleans: optional string/boolean; an integer that fits an int int32, a long int64,
//    any other number a double (an integer past 64 bits too, which then fails as a value);
//  - an object: an optional struct named by its path ("payload", "payload.c"), its fields in
//    document order, without those whose value has no schema: null (unless
//    json.payload.null.behavior optional_bytes: optional bytes) and [] (unless
//    empty.array.behavior optional_string: an array of optional strings);
//  - an array: its first non-null element decides. Every non-null element must be of that JSON
//    kind (numbers of that schema), or inference fails. Objects: the distinct schemas of the
//    elements merged, fields of later ones appended, a bytes placeholder giving way to a real
//    type; a struct merged from two or more schemas is required (Debezium copies the name but
//    not the optionality). Anything else: the first element's schema, which must exist.
// Debezium merges the element schemas in a java.util.HashSet's order, which follows Java identity
// hash codes and so changes with the JVM's start-up; here they merge in order of first appearance.
struct ExpandedSchema {
    enum class Type { string, boolean, int32, int64, float64, bytes, array, structure };
    Type type = Type::string;
    bool optional = true;
    std::optional<std::string> name;  // structs; none inside an array of arrays
    std::vector<std::pair<std::string, std::shared_ptr<const ExpandedSchema>>> fields;
    std::shared_ptr<const ExpandedSchema> items;

    bool operator==(const ExpandedSchema& other) const;
};

// Why Debezium infers no schema: arrays mixing JSON kinds or number schemas, or an array whose
// first non-null element has no schema (only nulls, or an empty array first).
class SchemaInferenceError : public std::runtime_error {
public:
    SchemaInferenceError(const std::string& what, bool mixed_types) : std::runtime_error(what), mixed_types(mixed_types) {}
    bool mixed_types;
};

using OrderedJson = nlohmann::ordered_json;

// Throws SchemaInferenceError. `name` names the top-level struct (the payload column).
std::shared_ptr<const ExpandedSchema> infer_expanded_schema(const OrderedJson& document, std::string_view name,
                                                            config::JsonNullBehavior nulls,
                                                            config::JsonEmptyArrayBehavior empty_arrays);

// Where the document's value does not fit the schema (Connect's Struct refuses it), why.
std::optional<std::string> expanded_value_misfit(const ExpandedSchema& schema, const OrderedJson& value);

// The value as JsonConverter writes the Struct: every field of the schema in its order (null
// where the document has none), nothing the schema lacks. The value must fit.
void append_expanded_value(std::string& out, const ExpandedSchema& schema, const OrderedJson& value);

// The inferred schema in Connect's data model (JsonConverter writes it with connect_json.hpp).
SchemaPtr connect_schema_of(const ExpandedSchema& schema);

// The value in Connect's data model, as append_expanded_value writes it. The value must fit.
Value expanded_connect_value(const ExpandedSchema& schema, const OrderedJson& value);

}  // namespace outbox::connect
