#include "outbox/connect/connect_data.hpp"

namespace outbox::connect {

Value Value::of_boolean(bool value) {
    Value v;
    v.kind = Kind::boolean;
    v.boolean = value;
    return v;
}

Value Value::of_integer(Kind kind, std::int64_t value) {
    Value v;
    v.kind = kind;
    v.integer = value;
    return v;
}

Value Value::of_floating(Kind kind, double value) {
    Value v;
    v.kind = kind;
    v.floating = value;
    return v;
}

Value Value::of_string(std::string value) {
    Value v;
    v.kind = Kind::string;
    v.text = std::move(value);
    return v;
}

Value Value::of_bytes(std::string value) {
    Value v;
    v.kind = Kind::bytes;
    v.text = std::move(value);
    return v;
}

Value Value::of_struct(std::vector<Value> fields) {
    Value v;
    v.kind = Kind::structure;
    v.elements = std::move(fields);
    return v;
}

Value Value::of_array(std::vector<Value> items) {
    Value v;
    v.kind = Kind::array;
    v.elements = std::move(items);
    return v;
}

bool Value::operator==(const Value& other) const {
    if (kind != other.kind) return false;
    switch (kind) {
        case Kind::null: return true;
        case Kind::boolean: return boolean == other.boolean;
        case Kind::int8:
        case Kind::int16:
        case Kind::int32:
        case Kind::int64: return integer == other.integer;
        case Kind::float32:
        case Kind::float64:
            // NaN equals NaN here: the values are the same value, as Java's Double.equals says.
            return floating == other.floating || (floating != floating && other.floating != other.floating);
        case Kind::string:
        case Kind::bytes: return text == other.text;
        case Kind::array:
        case Kind::structure: return elements == other.elements;
        case Kind::map: return entries == other.entries;
    }
    return false;
}

const std::string* Schema::parameter(const std::string& key) const {
    for (const auto& [k, v] : parameters)
        if (k == key) return &v;
    return nullptr;
}

namespace {

bool same(const SchemaPtr& a, const SchemaPtr& b) { return a == b || (a && b && *a == *b); }

}  // namespace

bool Schema::operator==(const Schema& other) const {
    if (type != other.type || optional != other.optional || name != other.name || version != other.version ||
        doc != other.doc || parameters != other.parameters || default_value != other.default_value ||
        fields.size() != other.fields.size() || !same(items, other.items) || !same(keys, other.keys) ||
        !same(values, other.values))
        return false;
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (fields[i].name != other.fields[i].name || !same(fields[i].schema, other.fields[i].schema)) return false;
    return true;
}

Value::Kind value_kind(Schema::Type type) {
    switch (type) {
        case Schema::Type::int8: return Value::Kind::int8;
        case Schema::Type::int16: return Value::Kind::int16;
        case Schema::Type::int32: return Value::Kind::int32;
        case Schema::Type::int64: return Value::Kind::int64;
        case Schema::Type::float32: return Value::Kind::float32;
        case Schema::Type::float64: return Value::Kind::float64;
        case Schema::Type::boolean: return Value::Kind::boolean;
        case Schema::Type::string: return Value::Kind::string;
        case Schema::Type::bytes: return Value::Kind::bytes;
        case Schema::Type::array: return Value::Kind::array;
        case Schema::Type::map: return Value::Kind::map;
        case Schema::Type::structure: return Value::Kind::structure;
    }
    return Value::Kind::null;
}

}  // namespace outbox::connect
