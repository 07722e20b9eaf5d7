#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace outbox {

// A PostgreSQL XLogRecPtr. 0 is InvalidXLogRecPtr.
using Lsn = std::uint64_t;

// "16/B374D848", the form PostgreSQL prints and accepts.
std::string format_lsn(Lsn lsn);
std::optional<Lsn> parse_lsn(std::string_view text);

// PostgreSQL timestamps on the wire count microseconds from 2000-01-01 00:00:00 UTC.
constexpr std::int64_t kPostgresEpochUnixMicros = 946'684'800'000'000;
constexpr std::int64_t postgres_micros_to_unix_millis(std::int64_t pg_micros) {
    return (pg_micros + kPostgresEpochUnixMicros) / 1000;
}
constexpr std::int64_t postgres_micros_to_unix_micros(std::int64_t pg_micros) {
    return pg_micros + kPostgresEpochUnixMicros;
}

}  // namespace outbox
