#include "outbox/connect/bit_string.hpp"

namespace outbox::connect {

std::optional<std::string> bits_bytes(std::string_view text) {
    std::string bytes((text.size() + 7) / 8, '\0');
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[text.size() - 1 - i];  // bit i, the least significant first
        if (c != '0' && c != '1') return std::nullopt;
        if (c == '1') bytes[i / 8] = static_cast<char>(static_cast<unsigned char>(bytes[i / 8]) | 1u << (i % 8));
    }
    while (!bytes.empty() && bytes.back() == '\0') bytes.pop_back();
    return bytes;
}

std::optional<bool> bit_boolean(std::string_view text) {
    std::size_t i = text.starts_with('-') || text.starts_with('+') ? 1 : 0;
    if (i == text.size()) return std::nullopt;
    int significant = 0;
    bool any = false;
    for (; i < text.size(); ++i) {
        if (text[i] != '0' && text[i] != '1') return std::nullopt;
        if (text[i] == '1') any = true;
        if (any) ++significant;
    }
    if (significant > 31) return std::nullopt;  // past Integer.MAX_VALUE (-2^31 is never bits' text)
    return any;
}

}  // namespace outbox::connect
