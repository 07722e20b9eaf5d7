#include "outbox/avro/avro_encoder.hpp"

#include <bit>
#include <cstring>

namespace outbox::avro {

using connect::Schema;
using connect::Value;

namespace {

void append_long(std::string& out, std::int64_t n) {
    auto zigzag = (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63);
    while (zigzag >= 0x80) {
        out += static_cast<char>((zigzag & 0x7F) | 0x80);
        zigzag >>= 7;
    }
    out += static_cast<char>(zigzag);
}

template <typename Bits>
void append_little_endian(std::string& out, Bits bits) {
    for (std::size_t i = 0; i < sizeof bits; ++i) out += static_cast<char>(bits >> (8 * i) & 0xFF);
}

void append_length_prefixed(std::string& out, const std::string& bytes) {
    append_long(out, static_cast<std::int64_t>(bytes.size()));
    out += bytes;
}

const char* type_name(Schema::Type type) {
    switch (type) {
        case Schema::Type::int8: return "int8";
        case Schema::Type::int16: return "int16";
        case Schema::Type::int32: return "int32";
        case Schema::Type::int64: return "int64";
        case Schema::Type::float32: return "float32";
        case Schema::Type::float64: return "float64";
        case Schema::Type::boolean: return "boolean";
        case Schema::Type::string: return "string";
        case Schema::Type::bytes: return "bytes";
        case Schema::Type::array: return "array";
        case Schema::Type::map: return "map";
        case Schema::Type::structure: return "struct";
    }
    return "?";
}

void append_required(std::string& out, const Schema& schema, const Value& value) {
    if (value.kind != connect::value_kind(schema.type))
        throw AvroEncodingError(std::string("a value of another type where the schema is ") + type_name(schema.type) +
                                (schema.name ? " (" + *schema.name + ")" : std::string()));
    switch (schema.type) {
        case Schema::Type::boolean: out += value.boolean ? '\1' : '\0'; return;
        case Schema::Type::int8:
        case Schema::Type::int16:
        case Schema::Type::int32:
        case Schema::Type::int64: append_long(out, value.integer); return;
        case Schema::Type::float32:
            append_little_endian(out, std::bit_cast<std::uint32_t>(static_cast<float>(value.floating)));
            return;
        case Schema::Type::float64: append_little_endian(out, std::bit_cast<std::uint64_t>(value.floating)); return;
        case Schema::Type::string:
        case Schema::Type::bytes: append_length_prefixed(out, value.text); return;
        case Schema::Type::array:
            if (!value.elements.empty()) {
                append_long(out, static_cast<std::int64_t>(value.elements.size()));
                for (const auto& item : value.elements) append_avro_binary(out, *schema.items, item);
            }
            out += '\0';
            return;
        case Schema::Type::map: {
            if (!value.entries.empty()) {
                append_long(out, static_cast<std::int64_t>(value.entries.size()));
                for (const auto& [key, entry] : value.entries) {
                    append_avro_binary(out, *schema.keys, key);  // a map key, or a MapEntry's first field
                    append_avro_binary(out, *schema.values, entry);
                }
            }
            out += '\0';
            return;
        }
        case Schema::Type::structure:
            if (value.elements.size() != schema.fields.size())
                throw AvroEncodingError("a struct value with " + std::to_string(value.elements.size()) +
                                        " fields where the schema has " + std::to_string(schema.fields.size()));
            for (std::size_t i = 0; i < schema.fields.size(); ++i)
                append_avro_binary(out, *schema.fields[i].schema, value.elements[i]);
            return;
    }
}

}  // namespace

void append_avro_binary(std::string& out, const Schema& schema, const Value& value) {
    if (!schema.optional) {
        if (value.kind == Value::Kind::null)
            throw AvroEncodingError(std::string("a null where the schema (") + type_name(schema.type) +
                                    (schema.name ? " " + *schema.name : std::string()) + ") is required");
        append_required(out, schema, value);
        return;
    }
    // The union's branches: [null, type], or [type, null] for a primitive with a default.
    const bool null_first = schema.type == Schema::Type::structure || !schema.default_value;
    const bool null = value.kind == Value::Kind::null;
    append_long(out, null == null_first ? 0 : 1);
    if (!null) append_required(out, schema, value);
}

void append_confluent_header(std::string& out, std::int32_t schema_id) {
    out += '\0';
    const auto id = static_cast<std::uint32_t>(schema_id);
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>(id >> shift & 0xFF);
}

}  // namespace outbox::avro
