#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace outbox::connect {

// PostgreSQL type OIDs (pg_type.dat) the router converts. pgoutput sends every value in the
// type's text output format and names the type in the RELATION message.
namespace pg_oid {
inline constexpr std::uint32_t kUnknown = 0;  // no type: a logical decoding message field holding null
inline constexpr std::uint32_t kBool = 16;
inline constexpr std::uint32_t kDate = 1082;
inline constexpr std::uint32_t kTime = 1083;
inline constexpr std::uint32_t kTimetz = 1266;
inline constexpr std::uint32_t kInterval = 1186;
inline constexpr std::uint32_t kBytea = 17;
inline constexpr std::uint32_t kInt8 = 20;
inline constexpr std::uint32_t kInt2 = 21;
inline constexpr std::uint32_t kInt4 = 23;
inline constexpr std::uint32_t kText = 25;
inline constexpr std::uint32_t kOid = 26;
inline constexpr std::uint32_t kJson = 114;
inline constexpr std::uint32_t kFloat4 = 700;
inline constexpr std::uint32_t kFloat8 = 701;
inline constexpr std::uint32_t kVarchar = 1043;
inline constexpr std::uint32_t kTimestamp = 1114;
inline constexpr std::uint32_t kTimestamptz = 1184;
inline constexpr std::uint32_t kNumeric = 1700;
inline constexpr std::uint32_t kUuid = 2950;
inline constexpr std::uint32_t kJsonb = 3802;
inline constexpr std::uint32_t kMoney = 790;
inline constexpr std::uint32_t kBit = 1560;
inline constexpr std::uint32_t kVarbit = 1562;
inline constexpr std::uint32_t kPoint = 600;
}  // namespace pg_oid

// How a column's text output becomes Kafka bytes and JSON. Every type not listed (text,
// varchar, uuid, ...) is `text`: its PostgreSQL text is used as is. `untyped` values are
// always NULL, so they fit any use. value_type() knows builtin scalar OIDs only: arrays and
// domains are resolved by the type resolver (pg_type_resolver.hpp).
enum class ValueType {
    text,
    boolean,
    integer,
    float32,
    float64,
    numeric,
    json,
    bytea,
    timestamp,
    timestamptz,
    date,
    time,
    timetz,
    interval,
    array,  // a PostgreSQL array; ColumnType::element says of what
    money,
    bits,   // bit(n) and varbit(n): a boolean for n = 1, else Debezium's Bits bytes
    point,  // Debezium's io.debezium.data.geometry.Point
    untyped
};
ValueType value_type(std::uint32_t type_oid);
const char* value_type_name(ValueType type);

// Decodes bytea's text output in either bytea_output format: hex ("\x0a1b") or escape
// ("a\\b\001"). Returns false for anything else.
bool decode_bytea(std::string_view text, std::string& out);

void append_base64(std::string& out, std::string_view bytes);

// A quote, a backslash or a control character as Jackson escapes it inside a JSON string.
void append_json_escape(std::string& out, unsigned char c);

// `text` as a JSON string literal (quotes included), escaped as Jackson (Kafka Connect's
// JsonConverter) escapes it: quotes, backslashes and control characters, and characters outside
// the Basic Multilingual Plane as UTF-16 surrogate escapes (U+1F600 is \uD83D\uDE00); other
// UTF-8 passes through.
void append_json_string(std::string& out, std::string_view text);

// `text` in double quotes with '"' and '\' escaped by a backslash: Kafka's Values text of a
// string (SimpleHeaderConverter), hstore's input syntax, an element of PostgreSQL's array text.
void append_backslash_quoted(std::string& out, std::string_view text);

// A value's own bytes, for routing and the empty-payload test: the text, except booleans
// (true/false, where PostgreSQL prints t/f) and bytea (the raw bytes, decoded into `scratch`).
// nullopt when a bytea text is malformed.
std::optional<std::string_view> kafka_bytes(ValueType type, std::string_view text, std::string& scratch);

}  // namespace outbox::connect
