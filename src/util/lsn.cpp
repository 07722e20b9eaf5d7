#include "outbox/util/lsn.hpp"

#include <charconv>
#include <cstdio>

namespace outbox {

std::string format_lsn(Lsn lsn) {
    char text[32];
    std::snprintf(text, sizeof text, "%X/%X", static_cast<unsigned>(lsn >> 32),
                  static_cast<unsigned>(lsn & 0xffffffffu));
    return text;
}

std::optional<Lsn> parse_lsn(std::string_view text) {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) return std::nullopt;
    std::uint32_t high = 0;
    std::uint32_t low = 0;
    const auto hi_end = text.data() + slash;
    auto [p1, e1] = std::from_chars(text.data(), hi_end, high, 16);
    if (e1 != std::errc{} || p1 != hi_end) return std::nullopt;
    const auto end = text.data() + text.size();
    auto [p2, e2] = std::from_chars(hi_end + 1, end, low, 16);
    if (e2 != std::errc{} || p2 != end) return std::nullopt;
    return (static_cast<Lsn>(high) << 32) | low;
}

}  // namespace outbox
