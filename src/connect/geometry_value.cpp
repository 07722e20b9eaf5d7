#include "outbox/connect/geometry_value.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

namespace outbox::connect {
namespace {

std::string_view trimmed(std::string_view text) {
    // Java's String.trim(), which Double.parseDouble applies: every character up to U+0020.
    while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ') text.remove_prefix(1);
    while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ') text.remove_suffix(1);
    return text;
}

// Double.parseDouble for the texts float8out writes: digits with an optional exponent,
// Infinity, -Infinity and NaN.
std::optional<double> parse_coordinate(std::string_view text) {
    text = trimmed(text);
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity" || text == "+Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text.empty() || text.find_first_not_of("0123456789.-+eE") != std::string_view::npos) return std::nullopt;
    if (text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (end != text.data() + text.size()) return std::nullopt;
    if (error == std::errc::result_out_of_range) {
        // Java rounds past the range to an infinity and below it to zero, each with the sign.
        const bool negative = text.front() == '-';
        const auto e = text.find_first_of("eE");
        const bool huge = e != std::string_view::npos && text[e + 1] != '-';
        const double magnitude = huge ? std::numeric_limits<double>::infinity() : 0.0;
        return negative ? -magnitude : magnitude;
    }
    if (error != std::errc{}) return std::nullopt;
    return value;
}

void append_little_endian(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i) & 0xff));
}

}  // namespace

std::optional<PointValue> parse_point(std::string_view text) {
    // PGtokenizer.removePara, then the text up to the first comma outside brackets and the rest.
    if (text.starts_with('(')) text.remove_prefix(1);
    if (text.ends_with(')')) text.remove_suffix(1);
    const auto comma = text.find(',');
    if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) return std::nullopt;
    const auto x = parse_coordinate(text.substr(0, comma));
    const auto y = parse_coordinate(text.substr(comma + 1));
    if (!x || !y) return std::nullopt;
    return PointValue{*x, *y};
}

std::string point_wkb(const PointValue& point) {
    std::string wkb;
    wkb.reserve(21);
    wkb.push_back('\x01');
    append_little_endian(wkb, 1, 4);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &point.x, sizeof bits);
    append_little_endian(wkb, bits, 8);
    std::memcpy(&bits, &point.y, sizeof bits);
    append_little_endian(wkb, bits, 8);
    return wkb;
}

}  // namespace outbox::connect
