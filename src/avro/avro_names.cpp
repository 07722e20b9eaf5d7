#include "outbox/avro/avro_names.hpp"

#include <cstdio>

namespace outbox::avro {
namespace {

bool first_character(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool later_character(char c) { return first_character(c) || (c >= '0' && c <= '9'); }

// One UTF-8 sequence's code point from `text[i]` on, advancing i past it; a malformed byte is
// taken as itself.
unsigned code_point(std::string_view text, std::size_t& i) {
    const auto byte = static_cast<unsigned char>(text[i++]);
    const int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0;
    if (extra == 0 || i + extra > text.size()) return byte;
    unsigned value = byte & (0x3F >> extra);
    for (int k = 0; k < extra; ++k) value = value << 6 | (static_cast<unsigned char>(text[i++]) & 0x3F);
    return value;
}

}  // namespace

bool is_avro_name(std::string_view name) {
    if (name.empty() || !first_character(name.front())) return false;
    for (const char c : name)
        if (!later_character(c)) return false;
    return true;
}

std::string adjusted_name(std::string_view name, NameAdjustment mode, std::string_view what) {
    if (is_avro_name(name)) return std::string(name);
    if (mode == NameAdjustment::none)
        throw AvroNameError(std::string(what) + " \"" + std::string(name) +
                            "\" is not a valid Avro name ([A-Za-z_][A-Za-z0-9_]*); schema.name.adjustment.mode "
                            "and field.name.adjustment.mode avro replace the characters Avro refuses");
    std::string adjusted;
    for (std::size_t i = 0; i < name.size();) {
        const char c = name[i];
        if (adjusted.empty() ? first_character(c) : later_character(c)) {
            adjusted += c;
            ++i;
            continue;
        }
        const unsigned point = code_point(name, i);
        if (mode == NameAdjustment::avro) {
            adjusted += '_';
        } else {
            char hex[16];
            std::snprintf(hex, sizeof hex, "_u%04x", point);
            adjusted += hex;
        }
    }
    if (adjusted.empty()) adjusted = "_";
    return adjusted;
}

std::string adjusted_full_name(std::string_view full_name, NameAdjustment mode, std::string_view what) {
    std::string adjusted;
    std::size_t start = 0;
    while (true) {
        const auto dot = full_name.find('.', start);
        const auto part = full_name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        adjusted += adjusted_name(part, mode, what);
        if (dot == std::string_view::npos) return adjusted;
        adjusted += '.';
        start = dot + 1;
    }
}

}  // namespace outbox::avro
