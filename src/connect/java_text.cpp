#include "outbox/connect/java_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace outbox::connect {
namespace {

struct Civil {
    std::int64_t year;
    unsigned month;
    unsigned day;
};

// Howard Hinnant's civil_from_days.
Civil civil_from_days(std::int64_t days) {
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const auto day_of_era = static_cast<unsigned>(days - era * 146097);
    const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    const unsigned mp = (5 * day_of_year + 2) / 153;
    const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
    const unsigned month = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<std::int64_t>(year_of_era) + era * 400 + (month <= 2), month, day};
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

std::string two(std::int64_t n) {
    char text[3] = {static_cast<char>('0' + n / 10 % 10), static_cast<char>('0' + n % 10), 0};
    return text;
}

// java.time's year: four digits at least, "+" past 9999, "-" before year 0.
std::string iso_year(std::int64_t year) {
    char text[32];
    if (year > 9999) std::snprintf(text, sizeof text, "+%lld", static_cast<long long>(year));
    else if (year < 0) std::snprintf(text, sizeof text, "-%04lld", static_cast<long long>(-year));
    else std::snprintf(text, sizeof text, "%04lld", static_cast<long long>(year));
    return text;
}

// SimpleDateFormat's "yyyy": four digits at least, the year of era (no sign).
std::string pattern_year(std::int64_t year) {
    char text[32];
    std::snprintf(text, sizeof text, "%04lld", static_cast<long long>(year > 0 ? year : 1 - year));
    return text;
}

std::string date_text(const Civil& date, std::string (*year)(std::int64_t)) {
    return year(date.year) + "-" + two(date.month) + "-" + two(date.day);
}

std::string hms(std::int64_t seconds_of_day) {
    return two(seconds_of_day / 3600) + ":" + two(seconds_of_day / 60 % 60) + ":" + two(seconds_of_day % 60);
}

// The fraction of a second (in microseconds) as java.time writes it: `digits` 1 to 6 fixed,
// 0 only the digits needed.
std::string fraction(std::int64_t micros, int digits) {
    char text[8];
    std::snprintf(text, sizeof text, "%06lld", static_cast<long long>(micros));
    std::string all(text);
    if (digits > 0) return "." + all.substr(0, static_cast<std::size_t>(digits));
    while (!all.empty() && all.back() == '0') all.pop_back();
    return all.empty() ? "" : "." + all;
}

// Java's floating-point text from the shortest round-trip digits: plain between 10^-3 and
// 10^7, computerized scientific notation elsewhere, always a digit after the point.
template <typename Float>
std::string java_floating_text(Float value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
    const bool negative = text[0] == '-';
    std::string digits;
    int exponent = 0;  // value = d.ddd × 10^exponent
    const auto read = [&](std::string_view scientific) {
        const auto at = scientific.find('e');
        digits.clear();
        for (const char c : scientific.substr(negative, at - negative))
            if (c != '.') digits.push_back(c);
        const auto exponent_text = scientific.substr(at + 1);
        std::from_chars(exponent_text.data() + (exponent_text[0] == '+'), exponent_text.data() + exponent_text.size(),
                        exponent);
    };
    read(text);
    if (digits.size() == 1) {
        // Where one digit reads back as the value, Java (19 and later) takes the one- or two-digit
        // decimal nearest to the value: 4.9E-324, not 5.0E-324.
        char two[64];
        const auto end = std::to_chars(two, two + sizeof two, value, std::chars_format::scientific, 1).ptr;
        Float back{};
        const std::string_view candidate(two, static_cast<std::size_t>(end - two));
        std::from_chars(candidate.data(), candidate.data() + candidate.size(), back);
        if (back == value) read(candidate);
        if (digits.size() == 2 && digits[1] == '0') digits.pop_back();  // the one-digit value itself
    }
    std::string out = negative ? "-" : "";
    if (exponent >= -3 && exponent < 7) {
        if (exponent < 0) {
            out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
        } else {
            const auto whole = static_cast<std::size_t>(exponent) + 1;
            if (digits.size() <= whole) {
                out += digits + std::string(whole - digits.size(), '0') + ".0";
            } else {
                out += digits.substr(0, whole) + "." + digits.substr(whole);
            }
        }
        return out;
    }
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" + std::to_string(exponent);
    return out;
}

}  // namespace

std::string java_double_text(double value) { return java_floating_text(value); }
std::string java_float_text(float value) { return java_floating_text(value); }

std::string iso_date_time(std::int64_t epoch_us, int fraction_digits) {
    const std::int64_t seconds = floor_div(epoch_us, 1000000);
    const std::int64_t days = floor_div(seconds, 86400);
    return date_text(civil_from_days(days), iso_year) + "T" + hms(seconds - days * 86400) +
           fraction(epoch_us - seconds * 1000000, fraction_digits) + "Z";
}

std::string iso_date(std::int64_t epoch_days) { return date_text(civil_from_days(epoch_days), iso_year) + "Z"; }

std::string iso_time(std::int64_t micros_of_day) {
    const std::int64_t seconds = micros_of_day / 1000000 % 86400;
    return hms(seconds) + fraction(micros_of_day % 1000000, 0) + "Z";
}

std::string java_date_text(std::int64_t epoch_ms) {
    static constexpr const char* kDays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const std::int64_t seconds = floor_div(epoch_ms, 1000);
    const std::int64_t days = floor_div(seconds, 86400);
    const Civil date = civil_from_days(days);
    const std::int64_t year = date.year > 0 ? date.year : 1 - date.year;
    return std::string(kDays[(days % 7 + 7) % 7]) + " " + kMonths[date.month - 1] + " " + two(date.day) + " " +
           hms(seconds - days * 86400) + " UTC " + std::to_string(year);
}

std::string connect_header_date_text(std::int64_t epoch_ms) {
    constexpr std::int64_t kDayMs = 86400000;
    const std::int64_t seconds = floor_div(epoch_ms, 1000);
    const std::int64_t days = floor_div(seconds, 86400);
    char millis[5];
    std::snprintf(millis, sizeof millis, ".%03lld", static_cast<long long>(epoch_ms - seconds * 1000));
    const std::string time = hms(seconds - days * 86400) + millis + "Z";
    if (epoch_ms < kDayMs) return time;
    const std::string date = date_text(civil_from_days(days), pattern_year);
    if (epoch_ms % kDayMs == 0) return date;
    return date + "T" + time;
}

void append_jackson_double(std::string& out, double value) {
    const bool finite = std::isfinite(value);
    if (!finite) out += '"';
    out += java_double_text(value);
    if (!finite) out += '"';
}

}  // namespace outbox::connect
