#include "outbox/connect/interval_value.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "outbox/connect/decimal_number.hpp"
#include "outbox/connect/java_text.hpp"

namespace outbox::connect {
namespace {

// Integer.parseInt: an optional sign, decimal digits, within an int.
std::optional<std::int32_t> java_int(std::string_view text) {
    if (text.starts_with('+')) text.remove_prefix(1);
    if (text.empty() || text == "-") return std::nullopt;
    std::int32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// Double.parseDouble of the seconds float8-free interval_out writes: digits and a fraction.
std::optional<double> java_seconds(std::string_view text) {
    if (text.starts_with('+')) text.remove_prefix(1);
    if (text.empty() || text.find_first_not_of("0123456789.-") != std::string_view::npos) return std::nullopt;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::vector<std::string_view> tokens(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '+'; };
    while (i < text.size()) {
        while (i < text.size() && blank(text[i])) ++i;
        const std::size_t start = i;
        while (i < text.size() && !blank(text[i])) ++i;
        if (i > start) out.push_back(text.substr(start, i - start));
    }
    return out;
}

// Java's (long) of a double: toward zero, NaN 0, saturating at the range's ends.
std::int64_t java_long(double value) {
    if (std::isnan(value)) return 0;
    if (value >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
    if (value <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(value);
}

}  // namespace

std::optional<IntervalParts> IntervalParts::parse(std::string_view text) {
    // PGInterval reads '+' and '@' as blanks; '@' and ISO 8601 forms are other IntervalStyles.
    if (text.starts_with('P') || text.find('@') != std::string_view::npos) return std::nullopt;
    IntervalParts parts;
    double seconds = 0;
    std::optional<std::string_view> value;  // the number before a unit
    const auto number = [&]() -> std::optional<std::int32_t> { return value ? java_int(*value) : 0; };
    const auto words = tokens(text);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string_view token = words[i];
        if (i % 2 == 0) {
            const auto colon = token.find(':');
            if (colon == std::string_view::npos) {
                value = token;
                continue;
            }
            const std::size_t offset = token.starts_with('-') ? 1 : 0;
            const auto hours = java_int(token.substr(offset, colon - offset));
            if (colon + 3 > token.size()) return std::nullopt;
            const auto minutes = java_int(token.substr(colon + 1, 2));
            if (!hours || !minutes) return std::nullopt;
            parts.hours = *hours;
            parts.minutes = *minutes;
            seconds = 0;
            if (const auto second_colon = token.find(':', colon + 1); second_colon != std::string_view::npos) {
                const auto parsed = java_seconds(token.substr(second_colon + 1));
                if (!parsed) return std::nullopt;
                seconds = *parsed;
            }
            if (offset == 1) {
                parts.hours = -parts.hours;
                parts.minutes = -parts.minutes;
                seconds = -seconds;
            }
            value.reset();
            continue;
        }
        // The units IntervalStyle postgres writes (PGInterval would skip others: not PostgreSQL's text).
        std::int32_t* unit = token == "year" || token == "years"  ? &parts.years
                             : token == "mon" || token == "mons" ? &parts.months
                             : token == "day" || token == "days" ? &parts.days
                                                                 : nullptr;
        const auto parsed = number();
        if (!unit || !value || !parsed) return std::nullopt;
        *unit = *parsed;
        value.reset();
    }
    if (value) return std::nullopt;  // a number without its unit
    // PGInterval.setSeconds: rounded to microseconds, split into whole seconds (an int) and the rest.
    const double scaled = std::floor(seconds * 1e6 + 0.5);  // Math.round
    const std::int64_t total = java_long(scaled);
    const std::int64_t whole = total / 1000000;
    if (whole < std::numeric_limits<std::int32_t>::min() || whole > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
    parts.whole_seconds = static_cast<std::int32_t>(whole);
    parts.microseconds = static_cast<std::int32_t>(total % 1000000);
    return parts;
}

double IntervalParts::seconds() const {
    return static_cast<double>(whole_seconds) + static_cast<double>(microseconds) / 1000000.0;
}

std::int64_t IntervalParts::micro_duration() const {
    // Java's int arithmetic for the months (wrapping), then doubles.
    const auto months_total = static_cast<std::int32_t>(static_cast<std::uint32_t>(years) * 12u +
                                                        static_cast<std::uint32_t>(months));
    const double days_total = static_cast<double>(months_total) * (365.25 / 12.0) + days;
    const double seconds_total = (((days_total * 24 + hours) * 60) + minutes) * 60 + seconds();
    return java_long(seconds_total * 1e6);
}

std::string IntervalParts::iso_text() const {
    // BigDecimal.valueOf(double): the double's Java text, read back as a decimal; then
    // stripTrailingZeros().toPlainString().
    const std::string java = java_double_text(seconds());
    const auto e = java.find('E');
    std::string mantissa = java.substr(0, e);
    int exponent = e == std::string::npos ? 0 : std::stoi(java.substr(e + 1));
    auto decimal = DecimalNumber::parse(mantissa);
    std::string text = "0";
    if (decimal) {
        decimal->scale -= exponent;
        if (decimal->scale < 0) {
            decimal->digits.append(static_cast<std::size_t>(-decimal->scale), '0');
            decimal->scale = 0;
        }
        if (decimal->scale > 9) {  // setScale(9, RoundingMode.DOWN)
            const auto drop = static_cast<std::size_t>(decimal->scale - 9);
            decimal->digits = drop >= decimal->digits.size() ? "0" : decimal->digits.substr(0, decimal->digits.size() - drop);
            decimal->scale = 9;
        }
        text = decimal->stripped().plain_text();
    }
    return "P" + std::to_string(years) + "Y" + std::to_string(months) + "M" + std::to_string(days) + "DT" +
           std::to_string(hours) + "H" + std::to_string(minutes) + "M" + text + "S";
}

}  // namespace outbox::connect
