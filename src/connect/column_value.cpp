#include "outbox/connect/column_value.hpp"

namespace outbox::connect {
namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool decode_bytea_hex(std::string_view hex, std::string& out) {
    if (hex.size() % 2 != 0) return false;
    out.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int high = hex_digit(hex[i]);
        const int low = hex_digit(hex[i + 1]);
        if (high < 0 || low < 0) return false;
        out.push_back(static_cast<char>(high << 4 | low));
    }
    return true;
}

bool is_octal(char c) { return c >= '0' && c <= '7'; }

bool decode_bytea_escape(std::string_view text, std::string& out) {
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
            out.push_back(text[i]);
        } else if (i + 1 < text.size() && text[i + 1] == '\\') {
            out.push_back('\\');
            ++i;
        } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' && is_octal(text[i + 2]) &&
                   is_octal(text[i + 3])) {
            out.push_back(static_cast<char>((text[i + 1] - '0') << 6 | (text[i + 2] - '0') << 3 | (text[i + 3] - '0')));
            i += 3;
        } else {
            return false;
        }
    }
    return true;
}

std::string_view boolean_text(std::string_view text) {
    return text == "t" ? std::string_view("true") : text == "f" ? std::string_view("false") : text;
}

}  // namespace

ValueType value_type(std::uint32_t type_oid) {
    switch (type_oid) {
        case pg_oid::kBool: return ValueType::boolean;
        case pg_oid::kInt2:
        case pg_oid::kInt4:
        case pg_oid::kInt8:
        case pg_oid::kOid: return ValueType::integer;
        case pg_oid::kFloat4: return ValueType::float32;
        case pg_oid::kFloat8: return ValueType::float64;
        case pg_oid::kNumeric: return ValueType::numeric;
        case pg_oid::kDate: return ValueType::date;
        case pg_oid::kTime: return ValueType::time;
        case pg_oid::kTimetz: return ValueType::timetz;
        case pg_oid::kInterval: return ValueType::interval;
        case pg_oid::kJson:
        case pg_oid::kJsonb: return ValueType::json;
        case pg_oid::kBytea: return ValueType::bytea;
        case pg_oid::kTimestamp: return ValueType::timestamp;
        case pg_oid::kTimestamptz: return ValueType::timestamptz;
        case pg_oid::kMoney: return ValueType::money;
        case pg_oid::kBit:
        case pg_oid::kVarbit: return ValueType::bits;
        case pg_oid::kPoint: return ValueType::point;
        case pg_oid::kUnknown: return ValueType::untyped;
        default: return ValueType::text;
    }
}

const char* value_type_name(ValueType type) {
    switch (type) {
        case ValueType::text: return "text";
        case ValueType::boolean: return "boolean";
        case ValueType::integer: return "integer";
        case ValueType::float32: return "real";
        case ValueType::float64: return "double precision";
        case ValueType::numeric: return "numeric";
        case ValueType::date: return "date";
        case ValueType::time: return "time";
        case ValueType::timetz: return "timetz";
        case ValueType::interval: return "interval";
        case ValueType::json: return "json";
        case ValueType::bytea: return "bytea";
        case ValueType::timestamp: return "timestamp";
        case ValueType::timestamptz: return "timestamptz";
        case ValueType::array: return "array";
        case ValueType::money: return "money";
        case ValueType::bits: return "bit";
        case ValueType::point: return "point";
        case ValueType::untyped: return "untyped";
    }
    return "?";
}

bool decode_bytea(std::string_view text, std::string& out) {
    out.clear();
    if (text.starts_with("\\x")) return decode_bytea_hex(text.substr(2), out);
    return decode_bytea_escape(text, out);
}

void append_base64(std::string& out, std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
    const auto byte = [&](std::size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[i])); };
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned n = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
        out += {kAlphabet[n >> 18], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], kAlphabet[n & 63]};
    }
    if (i + 1 == bytes.size()) {
        const unsigned n = byte(i) << 16;
        out += {kAlphabet[n >> 18], kAlphabet[(n >> 12) & 63], '=', '='};
    } else if (i + 2 == bytes.size()) {
        const unsigned n = byte(i) << 16 | byte(i + 1) << 8;
        out += {kAlphabet[n >> 18], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], '='};
    }
}

namespace {

constexpr char kUpperHex[] = "0123456789ABCDEF";  // as Jackson writes \u escapes

void append_unicode_escape(std::string& out, std::uint32_t unit) {
    out += {'\\', 'u', kUpperHex[unit >> 12 & 15], kUpperHex[unit >> 8 & 15], kUpperHex[unit >> 4 & 15],
            kUpperHex[unit & 15]};
}

// The code point of the well-formed four-byte UTF-8 sequence at `at`; nullopt for anything else
// (which passes through as it is).
std::optional<std::uint32_t> supplementary_code_point(std::string_view text, std::size_t at) {
    if (at + 3 >= text.size()) return std::nullopt;
    const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(text[at + i])); };
    for (std::size_t i = 1; i < 4; ++i)
        if ((byte(i) & 0xC0) != 0x80) return std::nullopt;
    const std::uint32_t code_point = (byte(0) & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F);
    if (code_point < 0x10000 || code_point > 0x10FFFF) return std::nullopt;
    return code_point;
}

}  // namespace

void append_json_escape(std::string& out, unsigned char c) {
    switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: out += {'\\', 'u', '0', '0', kUpperHex[c >> 4], kUpperHex[c & 15]};
    }
}

void append_backslash_quoted(std::string& out, std::string_view text) {
    out += '"';
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
}

void append_json_string(std::string& out, std::string_view text) {
    out.push_back('"');
    std::size_t plain = 0;  // start of the run not yet copied
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0xF0 && c != 0xED) continue;
        if (c == 0xED) {
            // A lone UTF-16 surrogate (an expanded payload's unpaired \\uD800, held as its
            // three-byte form): Jackson escapes it.
            if (i + 2 >= text.size() || (static_cast<unsigned char>(text[i + 1]) & 0xE0) != 0xA0 ||
                (static_cast<unsigned char>(text[i + 2]) & 0xC0) != 0x80)
                continue;
            out.append(text, plain, i - plain);
            plain = i + 3;
            append_unicode_escape(out, 0xD000 | (static_cast<unsigned char>(text[i + 1]) & 0x3F) << 6 |
                                           (static_cast<unsigned char>(text[i + 2]) & 0x3F));
            i += 2;
            continue;
        }
        if (c >= 0xF0) {
            // Outside the Basic Multilingual Plane: Jackson writes the UTF-16 surrogate pair as
            // two escapes (it does not combine surrogates in UTF-8 output by default).
            const auto code_point = supplementary_code_point(text, i);
            if (!code_point) continue;
            out.append(text, plain, i - plain);
            plain = i + 4;
            const std::uint32_t offset = *code_point - 0x10000;
            append_unicode_escape(out, 0xD800 + (offset >> 10));
            append_unicode_escape(out, 0xDC00 + (offset & 0x3FF));
            i += 3;
            continue;
        }
        out.append(text, plain, i - plain);
        plain = i + 1;
        append_json_escape(out, c);
    }
    out.append(text, plain, text.size() - plain);
    out.push_back('"');
}

std::optional<std::string_view> kafka_bytes(ValueType type, std::string_view text, std::string& scratch) {
    switch (type) {
        case ValueType::boolean: return boolean_text(text);
        case ValueType::bytea:
            if (!decode_bytea(text, scratch)) return std::nullopt;
            return std::string_view(scratch);
        default: return text;
    }
}

}  // namespace outbox::connect
