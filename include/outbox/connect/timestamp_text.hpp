#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace outbox::connect {

// Milliseconds since 1970-01-01 UTC (sub-millisecond digits truncated toward zero, so half a
// millisecond before 1970 is 0) from PostgreSQL's ISO
// DateStyle output of timestamp and timestamptz ("2024-01-02 03:04:05.123456",
// "2024-01-02 03:04:05.123456+05:30"), also accepting ISO 8601's "T" and "Z" for logical
// decoding messages. Text without an offset is UTC, as Debezium reads timestamp columns.
// nullopt for anything else: infinity, BC dates, other DateStyles, impossible dates.
std::optional<std::int64_t> parse_timestamp_ms(std::string_view text);

// A timestamp, timestamptz or date column's value as Debezium's PostgreSQL connector reads it:
// microseconds since 1970-01-01 UTC (proleptic Gregorian, so "0044-03-15 BC" is year -43),
// `infinity` and `-infinity` as the instants Debezium gives them. Timestamps without an offset
// are UTC. nullopt for text PostgreSQL's ISO DateStyle does not write, or an instant past what
// 64-bit microseconds hold.
std::optional<std::int64_t> parse_timestamp_us(std::string_view text);
// Days since 1970-01-01 of a date column's text; `infinity` and `-infinity` as Debezium maps them.
std::optional<std::int64_t> parse_date_days(std::string_view text);
// Microseconds since midnight of a time column ("03:04:05.25", "24:00:00").
std::optional<std::int64_t> parse_time_us(std::string_view text);
// A timetz column ("03:04:05.25+02") as microseconds since midnight UTC.
std::optional<std::int64_t> parse_timetz_utc_us(std::string_view text);

// A whole decimal number that fits 64 bits (an integer column's text output).
std::optional<std::int64_t> parse_int64(std::string_view text);

}  // namespace outbox::connect
