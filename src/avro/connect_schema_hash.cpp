#include "outbox/avro/connect_schema_hash.hpp"

#include <cstdint>
#include <string_view>

namespace outbox::avro {
namespace {

// FNV-1a, 64 bits: bytes in, no allocation.
struct Hasher {
    std::uint64_t state = 14695981039346656037ull;

    void bytes(std::string_view data) {
        for (const unsigned char c : data) {
            state ^= c;
            state *= 1099511628211ull;
        }
    }
    void number(std::uint64_t n) {
        for (int i = 0; i < 8; ++i) {
            state ^= (n >> (8 * i)) & 0xff;
            state *= 1099511628211ull;
        }
    }
    void text(std::string_view data) {
        number(data.size());
        bytes(data);
    }
    void optional_text(const std::optional<std::string>& data) {
        number(data ? 1 : 0);
        if (data) text(*data);
    }

    void value(const connect::Value& v) {
        number(static_cast<std::uint64_t>(v.kind));
        number(v.boolean ? 1 : 0);
        number(static_cast<std::uint64_t>(v.integer));
        text(v.text);
        number(v.elements.size());
        for (const auto& e : v.elements) value(e);
        number(v.entries.size());
        for (const auto& e : v.entries) {
            value(e.key);
            value(e.value);
        }
    }

    void schema(const connect::Schema* s) {
        number(s ? 1 : 0);
        if (!s) return;
        number(static_cast<std::uint64_t>(s->type));
        number(s->optional ? 1 : 0);
        optional_text(s->name);
        number(s->version ? static_cast<std::uint64_t>(*s->version) + 1 : 0);
        optional_text(s->doc);
        number(s->parameters.size());
        for (const auto& [key, value] : s->parameters) {
            text(key);
            text(value);
        }
        number(s->default_value ? 1 : 0);
        if (s->default_value) value(*s->default_value);
        number(s->fields.size());
        for (const auto& field : s->fields) {
            text(field.name);
            schema(field.schema.get());
        }
        schema(s->items.get());
        schema(s->keys.get());
        schema(s->values.get());
    }
};

}  // namespace

std::size_t connect_schema_hash(const connect::Schema& schema) {
    Hasher hasher;
    hasher.schema(&schema);
    return static_cast<std::size_t>(hasher.state);
}

}  // namespace outbox::avro
