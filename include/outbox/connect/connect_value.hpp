#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_data.hpp"

namespace outbox::connect {

// A column's type as the router converts it: pgoutput's RELATION gives the type's OID and
// modifier (atttypmod), which the type resolver (pg_type_resolver.hpp) turns into this. A domain is
// its base type here (with the domain's modifier), as Debezium resolves it; an array names its
// element type.
struct ColumnType {
    ColumnType(ValueType kind = ValueType::text, std::int32_t modifier = -1, std::uint32_t oid = 0)
        : kind(kind), modifier(modifier), oid(oid) {}

    ValueType kind = ValueType::text;
    std::int32_t modifier = -1;  // -1: none declared; an array's applies to its elements
    std::uint32_t oid = 0;       // the type itself (a domain's base type), where the schema tells more than `kind`
    // A type defined outside pg_catalog's builtins (an extension's hstore, citext, ltree; an enum):
    // its pg_type name and schema, as the catalog gives them. Empty for builtin types.
    std::string name;
    std::string schema;
    // kind == ValueType::array: the element type (itself resolved: a domain element is its base type).
    std::shared_ptr<const ColumnType> element;
    // An enum: its labels in their sort order, joined by ',' (io.debezium.data.Enum's "allowed").
    std::optional<std::string> enum_values;
    // Resolved from a domain over this type (which Debezium names by the domain's name where it
    // picks by name: an unchanged out-of-line array's placeholder).
    bool from_domain = false;

    // p of time(p), timetz(p), timestamp(p) and timestamptz(p); 6 when none is declared.
    int fractional_digits() const;
    // numeric(p, s): false for a numeric declared without them.
    bool numeric_has_scale() const;
    int numeric_precision() const;
    int numeric_scale() const;
};

// A value Debezium cannot represent in the configured mode (NaN in a precise decimal), or text
// that is not what PostgreSQL writes for the type.
class ValueError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Whether Debezium's connector reads an array value at all: pgjdbc cannot make a BigDecimal of a
// numeric element NaN or an infinity, Debezium's ltree[] converter fails on a NULL element, and an
// enum[]'s schema refuses one; the connector then has null for the whole array.
bool debezium_reads_array(const ColumnType& type, std::string_view text);

// A column's value as Debezium's PostgreSQL connector makes it a Kafka Connect value (its
// time.precision.mode, decimal.handling.mode and binary.handling.mode), written the way each
// Kafka Connect converter writes that value. Text, uuid, json, integer and boolean columns pass
// through without copying; the others are built in `scratch`. Throws ValueError.
class ConnectValueWriter {
public:
    explicit ConnectValueWriter(const config::ValueModes& modes) : modes_(modes) {}

    // StringConverter (a key or a headers-only value): the value's Java text. Where Debezium's
    // Java text is an object's identity (a bytea ByteBuffer, a variable-scale decimal Struct),
    // the bytes and the header's text instead.
    std::string_view string_text(const ColumnType& type, std::string_view text, std::string& scratch) const;
    // SimpleHeaderConverter: the value's text, bytes as Base64, structures as JSON-like text.
    std::string_view header_text(const ColumnType& type, std::string_view text, std::string& scratch) const;
    // JsonConverter with schemas.enable=false: appends the value as JSON.
    void append_json(std::string& out, const ColumnType& type, std::string_view text) const;
    // The value's Java toString() as a field of a Struct that StringConverter writes: bytes as
    // their ByteBuffer's text; a variable-scale decimal as a Struct with its value in Base64
    // (Java prints the byte array's identity there, which no one can reproduce).
    void append_struct_field(std::string& out, const ColumnType& type, std::string_view text) const;

    // The value in Connect's data model, typed as column_schema() says (connect_schema.hpp).
    Value value(const ColumnType& type, std::string_view text) const;

    const config::ValueModes& modes() const { return modes_; }

private:
    struct Converted;
    Converted value_of(const ColumnType& type, std::string_view text, std::string& scratch) const;

    // An array column (connect_array_value.cpp): Debezium's Connect array of the converted
    // elements, as JsonConverter writes it ("[1,2,null]"), as Java's List.toString() ("[1, 2,
    // null]": StringConverter and Struct text) or as Kafka's Values text (SimpleHeaderConverter).
    enum class ArrayForm { json, java_list, header };
    void append_array(std::string& out, const ColumnType& type, std::string_view text, ArrayForm form) const;
    Value array_value(const ColumnType& type, std::string_view text) const;
    // Values' text of one value inside a list or struct: strings and bytes quoted.
    void append_embedded_header_text(std::string& out, const ColumnType& type, std::string_view text) const;

    config::ValueModes modes_;
    mutable std::string bytes_;  // decoded bytea, reused
};

}  // namespace outbox::connect
