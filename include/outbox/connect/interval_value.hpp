#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace outbox::connect {

// An interval as PostgreSQL's JDBC driver's PGInterval holds it, read from the text of
// IntervalStyle postgres ("1 year 2 mons -3 days -04:05:06.78"): each unit as written, the
// time's sign on its hours, minutes and seconds, and the seconds rounded to whole microseconds.
struct IntervalParts {
    std::int32_t years = 0;
    std::int32_t months = 0;
    std::int32_t days = 0;
    std::int32_t hours = 0;
    std::int32_t minutes = 0;
    std::int32_t whole_seconds = 0;
    std::int32_t microseconds = 0;  // of the second, with the seconds' sign

    // nullopt where PGInterval's parse fails (a number past an int, a malformed time) and for
    // units IntervalStyle postgres does not write, which PGInterval would skip.
    static std::optional<IntervalParts> parse(std::string_view text);

    // PGInterval.getSeconds(): whole seconds plus the microseconds, as a double.
    double seconds() const;
    // interval.handling.mode numeric: Debezium's MicroDuration, months of 365.25 / 12 days,
    // computed in doubles and truncated toward zero (saturating, as Java's cast does).
    std::int64_t micro_duration() const;
    // interval.handling.mode string: Debezium's io.debezium.time.Interval, "P1Y2M3DT4H5M6.78S"
    // (every unit written, the seconds without trailing zeros).
    std::string iso_text() const;
};

}  // namespace outbox::connect
