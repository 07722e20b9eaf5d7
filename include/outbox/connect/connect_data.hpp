#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace outbox::connect {

struct MapEntry;

// Kafka Connect's data model, as the router fills it: a value of one of Connect's types, typed
// as its schema says (a Decimal's unscaled bytes, a Date's days, a Timestamp's milliseconds: the
// logical type is the schema's). Each converter (JSON, Avro) writes the same model.
struct Value {
    enum class Kind { null, boolean, int8, int16, int32, int64, float32, float64, string, bytes, array, map, structure };
    Kind kind = Kind::null;
    bool boolean = false;
    std::int64_t integer = 0;  // int8 to int64
    double floating = 0;       // float32 (a float's value) and float64
    std::string text;          // a string's UTF-8, or the bytes
    std::vector<Value> elements;                   // an array's items; a struct's fields in its schema's order
    std::vector<MapEntry> entries;  // a map's

    static Value null();
    static Value of_boolean(bool value);
    static Value of_integer(Kind kind, std::int64_t value);
    static Value of_floating(Kind kind, double value);
    static Value of_string(std::string value);
    static Value of_bytes(std::string value);
    static Value of_struct(std::vector<Value> fields);
    static Value of_array(std::vector<Value> items);

    bool operator==(const Value& other) const;
};

// One key and value of a map. (A struct of its own: std::pair would need Value complete where
// Value declares its members, which clang refuses.)
struct MapEntry {
    Value key;
    Value value;
    bool operator==(const MapEntry& other) const { return key == other.key && value == other.value; }
};

inline Value Value::null() { return {}; }

struct Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

// A Connect schema (org.apache.kafka.connect.data.Schema): type, optionality, the logical or
// struct name with its version and doc, parameters in insertion order, the default, and the
// struct's fields, an array's items or a map's keys and values.
struct Schema {
    enum class Type { int8, int16, int32, int64, float32, float64, boolean, string, bytes, array, map, structure };
    struct Field {
        std::string name;
        SchemaPtr schema;
    };

    Type type = Type::string;
    bool optional = false;
    std::optional<std::string> name;
    std::optional<std::int32_t> version;
    std::optional<std::string> doc;
    std::vector<std::pair<std::string, std::string>> parameters;
    std::optional<Value> default_value;
    std::vector<Field> fields;
    SchemaPtr items;
    SchemaPtr keys;
    SchemaPtr values;

    // The parameter's value, or nullptr.
    const std::string* parameter(const std::string& key) const;
    bool operator==(const Schema& other) const;
};

// The value kind of a schema's type.
Value::Kind value_kind(Schema::Type type);

}  // namespace outbox::connect
