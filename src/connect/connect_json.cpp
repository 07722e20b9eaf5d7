#include "outbox/connect/connect_json.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/java_text.hpp"

namespace outbox::connect {
namespace {

const char* json_type_name(Schema::Type type) {
    switch (type) {
        case Schema::Type::int8: return "int8";
        case Schema::Type::int16: return "int16";
        case Schema::Type::int32: return "int32";
        case Schema::Type::int64: return "int64";
        case Schema::Type::float32: return "float";
        case Schema::Type::float64: return "double";
        case Schema::Type::boolean: return "boolean";
        case Schema::Type::string: return "string";
        case Schema::Type::bytes: return "bytes";
        case Schema::Type::array: return "array";
        case Schema::Type::map: return "map";
        case Schema::Type::structure: return "struct";
    }
    return "?";
}

void append_floating(std::string& out, const std::string& java_text, double value) {
    if (std::isfinite(value)) out += java_text;
    else append_json_string(out, java_text);  // Jackson writes NaN and the infinities as strings
}

}  // namespace

void append_schema_json(std::string& out, const Schema& schema) {
    out += "{\"type\":\"";
    out += json_type_name(schema.type);
    out += '"';
    switch (schema.type) {
        case Schema::Type::structure: {
            out += ",\"fields\":[";
            bool first = true;
            for (const auto& field : schema.fields) {
                if (!std::exchange(first, false)) out += ',';
                append_schema_json(out, *field.schema);
                out.pop_back();
                out += ",\"field\":";
                append_json_string(out, field.name);
                out += '}';
            }
            out += ']';
            break;
        }
        case Schema::Type::array:
            out += ",\"items\":";
            append_schema_json(out, *schema.items);
            break;
        case Schema::Type::map:
            out += ",\"keys\":";
            append_schema_json(out, *schema.keys);
            out += ",\"values\":";
            append_schema_json(out, *schema.values);
            break;
        default: break;
    }
    out += schema.optional ? ",\"optional\":true" : ",\"optional\":false";
    if (schema.name) {
        out += ",\"name\":";
        append_json_string(out, *schema.name);
    }
    if (schema.version) out += ",\"version\":" + std::to_string(*schema.version);
    if (schema.doc) {
        out += ",\"doc\":";
        append_json_string(out, *schema.doc);
    }
    if (!schema.parameters.empty()) {
        out += ",\"parameters\":{";
        bool first = true;
        for (const auto& [key, value] : schema.parameters) {
            if (!std::exchange(first, false)) out += ',';
            append_json_string(out, key);
            out += ':';
            append_json_string(out, value);
        }
        out += '}';
    }
    if (schema.default_value) {
        out += ",\"default\":";
        append_value_json(out, schema, *schema.default_value);
    }
    out += '}';
}

void append_value_json(std::string& out, const Schema& schema, const Value& value) {
    switch (value.kind) {
        case Value::Kind::null: out += "null"; return;
        case Value::Kind::boolean: out += value.boolean ? "true" : "false"; return;
        case Value::Kind::int8:
        case Value::Kind::int16:
        case Value::Kind::int32:
        case Value::Kind::int64: out += std::to_string(value.integer); return;
        case Value::Kind::float32:
            append_floating(out, java_float_text(static_cast<float>(value.floating)), value.floating);
            return;
        case Value::Kind::float64: append_floating(out, java_double_text(value.floating), value.floating); return;
        case Value::Kind::string: append_json_string(out, value.text); return;
        case Value::Kind::bytes:
            out += '"';
            append_base64(out, value.text);
            out += '"';
            return;
        case Value::Kind::array: {
            out += '[';
            bool first = true;
            for (const auto& item : value.elements) {
                if (!std::exchange(first, false)) out += ',';
                append_value_json(out, *schema.items, item);
            }
            out += ']';
            return;
        }
        case Value::Kind::map: {
            const bool object = schema.keys->type == Schema::Type::string;
            out += object ? '{' : '[';
            bool first = true;
            for (const auto& [key, entry] : value.entries) {
                if (!std::exchange(first, false)) out += ',';
                if (object) {
                    append_json_string(out, key.text);
                    out += ':';
                } else {
                    out += '[';
                    append_value_json(out, *schema.keys, key);
                    out += ',';
                }
                append_value_json(out, *schema.values, entry);
                if (!object) out += ']';
            }
            out += object ? '}' : ']';
            return;
        }
        case Value::Kind::structure: {
            out += '{';
            for (std::size_t i = 0; i < schema.fields.size(); ++i) {
                if (i > 0) out += ',';
                append_json_string(out, schema.fields[i].name);
                out += ':';
                if (i < value.elements.size()) append_value_json(out, *schema.fields[i].schema, value.elements[i]);
                else out += "null";
            }
            out += '}';
            return;
        }
    }
}

Value value_of_json(const Schema& schema, const nlohmann::ordered_json& json) {
    if (json.is_null()) return Value::null();
    const auto misfit = [&]() -> Value {
        throw std::invalid_argument(std::string("a JSON ") + json.type_name() + " where the schema is " +
                                    json_type_name(schema.type));
    };
    switch (schema.type) {
        case Schema::Type::boolean: return json.is_boolean() ? Value::of_boolean(json.get<bool>()) : misfit();
        case Schema::Type::int8:
        case Schema::Type::int16:
        case Schema::Type::int32:
        case Schema::Type::int64:
            return json.is_number_integer() ? Value::of_integer(value_kind(schema.type), json.get<std::int64_t>())
                                            : misfit();
        case Schema::Type::float32:
        case Schema::Type::float64:
            return json.is_number() ? Value::of_floating(value_kind(schema.type), json.get<double>()) : misfit();
        case Schema::Type::string: return json.is_string() ? Value::of_string(json.get<std::string>()) : misfit();
        case Schema::Type::bytes: return misfit();  // JSON's bytes are Base64 text, which expansion never makes
        case Schema::Type::array: {
            if (!json.is_array()) return misfit();
            std::vector<Value> items;
            items.reserve(json.size());
            for (const auto& item : json) items.push_back(value_of_json(*schema.items, item));
            return Value::of_array(std::move(items));
        }
        case Schema::Type::map: return misfit();
        case Schema::Type::structure: {
            if (!json.is_object()) return misfit();
            std::vector<Value> fields;
            fields.reserve(schema.fields.size());
            for (const auto& field : schema.fields) {
                const auto found = json.find(field.name);
                fields.push_back(found == json.end() ? Value::null() : value_of_json(*field.schema, *found));
            }
            return Value::of_struct(std::move(fields));
        }
    }
    return misfit();
}

}  // namespace outbox::connect
