#include "outbox/router/timestamp_text.hpp"

#include <charconv>

namespace outbox::router {
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
    // Fraction of a second as milliseconds, ignoring digits past the third.
    std::int64_t milliseconds() {
        std::int64_t ms = 0;
        int taken = 0;
        for (; peek_digit(); ++pos_, ++taken)
            if (taken < 3) ms = ms * 10 + (text_[pos_] - '0');
        for (; taken < 3; ++taken) ms *= 10;
        return ms;
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

}  // namespace

std::optional<std::int64_t> parse_timestamp_ms(std::string_view text) {
    Cursor in(text);
    const auto year = in.digits(0);
    if (!year || !in.take('-')) return std::nullopt;
    const auto month = in.digits(2);
    if (!month || *month < 1 || *month > 12 || !in.take('-')) return std::nullopt;
    const auto day = in.digits(2);
    if (!day || *day < 1 || *day > days_in_month(*year, static_cast<unsigned>(*month))) return std::nullopt;
    if (!in.take(' ') && !in.take('T')) return std::nullopt;
    const auto hour = in.digits(2);
    if (!hour || *hour > 23 || !in.take(':')) return std::nullopt;
    const auto minute = in.digits(2);
    if (!minute || *minute > 59 || !in.take(':')) return std::nullopt;
    const auto second = in.digits(2);
    if (!second || *second > 59) return std::nullopt;
    const std::int64_t millis = in.take('.') ? in.milliseconds() : 0;
    std::int64_t offset = 0;
    if (!in.at_end()) {
        const auto parsed = utc_offset_seconds(in);
        if (!parsed || !in.at_end()) return std::nullopt;
        offset = *parsed;
    }
    const std::int64_t days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
    const std::int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
    return seconds * 1000 + millis;
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
    std::int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end || text.empty()) return std::nullopt;
    return value;
}

}  // namespace outbox::router
