#include "outbox/connect/timestamp_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

namespace outbox::connect {
namespace {

// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
    year -= month <= 2;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const auto year_of_era = static_cast<unsigned>(year - era * 400);
    const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

unsigned days_in_month(std::int64_t year, unsigned month) {
    static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[month - 1];
}

// A position in the text being parsed; every read advances past what it consumed.
class Cursor {
public:
    explicit Cursor(std::string_view text) : text_(text) {}
    bool at_end() const { return pos_ == text_.size(); }
    bool take(char c) {
        if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
        return false;
    }
    bool peek_digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }
    // Exactly `count` digits, or with count 0 one to nine of them.
    std::optional<std::int64_t> digits(std::size_t count) {
        std::int64_t value = 0;
        std::size_t taken = 0;
        while (peek_digit() && (count == 0 ? taken < 9 : taken < count)) {
            value = value * 10 + (text_[pos_++] - '0');
            ++taken;
        }
        if (taken == 0 || (count != 0 && taken != count)) return std::nullopt;
        return value;
    }
    // Fraction of a second in units of 10^-places seconds, ignoring the digits past them.
    std::int64_t fraction(int places) {
        std::int64_t units = 0;
        int taken = 0;
        for (; peek_digit(); ++pos_, ++taken)
            if (taken < places) units = units * 10 + (text_[pos_] - '0');
        for (; taken < places; ++taken) units *= 10;
        return units;
    }
    bool take(std::string_view word) {
        if (text_.substr(pos_).substr(0, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

// "+05", "+05:30", "-03:30:15", "+0530", "Z": seconds east of UTC.
std::optional<std::int64_t> utc_offset_seconds(Cursor& in) {
    if (in.take('Z')) return 0;
    int sign = 0;
    if (in.take('+'))
        sign = 1;
    else if (in.take('-'))
        sign = -1;
    else
        return std::nullopt;
    const auto hours = in.digits(2);
    if (!hours || *hours > 15) return std::nullopt;
    std::int64_t seconds = *hours * 3600;
    in.take(':');
    if (in.peek_digit()) {
        const auto minutes = in.digits(2);
        if (!minutes || *minutes > 59) return std::nullopt;
        seconds += *minutes * 60;
        in.take(':');
        if (in.peek_digit()) {
            const auto secs = in.digits(2);
            if (!secs || *secs > 59) return std::nullopt;
            seconds += *secs;
        }
    }
    return sign * seconds;
}

// The parts of PostgreSQL's ISO output of a date, time or timestamp.
struct CivilDate {
    std::int64_t year = 0;  // astronomical: 1 BC is 0
    unsigned month = 1;
    unsigned day = 1;
};

std::optional<CivilDate> date_part(Cursor& in) {
    const auto year = in.digits(0);
    if (!year || !in.take('-')) return std::nullopt;
    const auto month = in.digits(2);
    if (!month || *month < 1 || *month > 12 || !in.take('-')) return std::nullopt;
    const auto day = in.digits(2);
    if (!day || *day < 1 || *day > days_in_month(*year, static_cast<unsigned>(*month))) return std::nullopt;
    return CivilDate{*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)};
}

// "HH:MM:SS[.ffffff]" as microseconds; 24:00:00 only where `allow_24` (time columns).
std::optional<std::int64_t> time_part(Cursor& in, bool allow_24) {
    const auto hour = in.digits(2);
    if (!hour || *hour > 24 || !in.take(':')) return std::nullopt;
    const auto minute = in.digits(2);
    if (!minute || *minute > 59 || !in.take(':')) return std::nullopt;
    const auto second = in.digits(2);
    if (!second || *second > 59) return std::nullopt;
    const std::int64_t micros = in.take('.') ? in.fraction(6) : 0;
    const std::int64_t total = ((*hour * 60 + *minute) * 60 + *second) * 1000000 + micros;
    if (*hour == 24 && (!allow_24 || total != 86400000000)) return std::nullopt;
    return total;
}

// A trailing " BC" turns the year into its astronomical number.
bool era(Cursor& in, CivilDate& date) {
    if (!in.take(" BC")) return true;
    if (date.year < 1) return false;
    date.year = 1 - date.year;
    return true;
}

// Date, time and offset with "T" and "Z" accepted (logical decoding messages); micros since
// the epoch, checked against overflow.
std::optional<std::int64_t> timestamp_micros(std::string_view text) {
    Cursor in(text);
    auto date = date_part(in);
    if (!date || (!in.take(' ') && !in.take('T'))) return std::nullopt;
    const auto time = time_part(in, false);
    if (!time) return std::nullopt;
    std::int64_t offset = 0;
    Cursor probe = in;
    if (const auto parsed = utc_offset_seconds(probe)) {
        offset = *parsed;
        in = probe;
    }
    if (!era(in, *date) || !in.at_end()) return std::nullopt;
    const std::int64_t days = days_from_civil(date->year, date->month, date->day);
    std::int64_t micros = 0;
    if (__builtin_mul_overflow(days * 86400 - offset, std::int64_t{1000000}, &micros) ||
        __builtin_add_overflow(micros, *time, &micros))
        return std::nullopt;
    return micros;
}

}  // namespace

std::optional<std::int64_t> parse_timestamp_ms(std::string_view text) {
    if (text.ends_with(" BC")) return std::nullopt;
    const auto micros = timestamp_micros(text);
    if (!micros) return std::nullopt;
    return *micros / 1000;  // toward zero, as Java's long division in Debezium's MicroTimestamp
}

std::optional<std::int64_t> parse_timestamp_us(std::string_view text) {
    // Debezium reads PostgreSQL's infinities as pgjdbc's sentinels, as milliseconds, in micros.
    if (text == "infinity") return 9223372036825200000;
    if (text == "-infinity") return -9223372036832400000;
    return timestamp_micros(text);
}

std::optional<std::int64_t> parse_date_days(std::string_view text) {
    // Debezium's LocalDate sentinels (-5877611-06-21 and -22), as it maps them.
    if (text == "infinity") return -2147472692;
    if (text == "-infinity") return -2147472691;
    Cursor in(text);
    auto date = date_part(in);
    if (!date || !era(in, *date) || !in.at_end()) return std::nullopt;
    return days_from_civil(date->year, date->month, date->day);
}

std::optional<std::int64_t> parse_time_us(std::string_view text) {
    Cursor in(text);
    const auto time = time_part(in, true);
    if (!time || !in.at_end()) return std::nullopt;
    return time;
}

std::optional<std::int64_t> parse_timetz_utc_us(std::string_view text) {
    Cursor in(text);
    const auto time = time_part(in, true);
    if (!time) return std::nullopt;
    const auto offset = utc_offset_seconds(in);
    if (!offset || !in.at_end()) return std::nullopt;
    constexpr std::int64_t kDay = 86400000000;
    return ((*time - *offset * 1000000) % kDay + kDay) % kDay;
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
    std::int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end || text.empty()) return std::nullopt;
    return value;
}

}  // namespace outbox::connect
