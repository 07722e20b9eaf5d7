#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace outbox::router {

// Milliseconds since 1970-01-01 UTC (sub-millisecond digits truncated) from PostgreSQL's ISO
// DateStyle output of timestamp and timestamptz ("2024-01-02 03:04:05.123456",
// "2024-01-02 03:04:05.123456+05:30"), also accepting ISO 8601's "T" and "Z" for logical
// decoding messages. Text without an offset is UTC, as Debezium reads timestamp columns.
// nullopt for anything else: infinity, BC dates, other DateStyles, impossible dates.
std::optional<std::int64_t> parse_timestamp_ms(std::string_view text);

// A whole decimal number that fits 64 bits (an integer column's text output).
std::optional<std::int64_t> parse_int64(std::string_view text);

}  // namespace outbox::router
