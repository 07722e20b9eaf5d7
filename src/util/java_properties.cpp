#include "outbox/util/java_properties.hpp"

#include <cstdint>

namespace outbox::util {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// \uXXXX at text[at] (just past the backslash and 'u'); -1 when not four hex digits.
long read_u_escape(const std::string& text, std::size_t at) {
    if (at + 4 > text.size()) return -1;
    long code = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
        const int digit = hex_digit(text[i]);
        if (digit < 0) return -1;
        code = code * 16 + digit;
    }
    return code;
}

// Resolves escapes in one logical line's key or value.
std::string unescape(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\' || i + 1 == text.size()) {
            if (text[i] != '\\') out += text[i];
            continue;
        }
        const char c = text[++i];
        switch (c) {
            case 't': out += '\t'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                long code = read_u_escape(text, i + 1);
                if (code < 0) {
                    out += 'u';  // malformed: Java throws; keeping the letter loses nothing
                    break;
                }
                i += 4;
                // A UTF-16 surrogate pair written as two escapes is one character.
                if (code >= 0xD800 && code < 0xDC00 && i + 2 < text.size() && text[i + 1] == '\\' && text[i + 2] == 'u') {
                    const long low = read_u_escape(text, i + 3);
                    if (low >= 0xDC00 && low < 0xE000) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                    }
                }
                append_utf8(out, static_cast<std::uint32_t>(code));
                break;
            }
            default: out += c;
        }
    }
    return out;
}

// Whether a natural line ends in an odd number of backslashes (a continuation).
bool continues(const std::string& line) {
    std::size_t count = 0;
    for (auto it = line.rbegin(); it != line.rend() && *it == '\\'; ++it) ++count;
    return count % 2 == 1;
}

}  // namespace

std::vector<JavaProperty> parse_java_properties(const std::string& text) {
    // Natural lines, with \n, \r or \r\n as terminators.
    std::vector<std::string> lines;
    std::string current;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' || text[i] == '\r') {
            if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            lines.push_back(current);
            current.clear();
        } else {
            current += text[i];
        }
    }
    if (!current.empty()) lines.push_back(current);

    std::vector<JavaProperty> entries;
    for (std::size_t n = 0; n < lines.size(); ++n) {
        const std::string& first = lines[n];
        std::size_t start = 0;
        while (start < first.size() && is_blank(first[start])) ++start;
        if (start == first.size() || first[start] == '#' || first[start] == '!') continue;
        const int line_number = static_cast<int>(n) + 1;
        std::string logical = first.substr(start);
        while (continues(logical) && n + 1 < lines.size()) {
            logical.pop_back();
            const std::string& next = lines[++n];
            std::size_t skip = 0;
            while (skip < next.size() && is_blank(next[skip])) ++skip;
            logical += next.substr(skip);
        }
        if (continues(logical)) logical.pop_back();  // a continuation at the end of the file

        // The key ends at the first unescaped '=', ':' or blank.
        std::size_t end = 0;
        while (end < logical.size() && logical[end] != '=' && logical[end] != ':' && !is_blank(logical[end])) {
            if (logical[end] == '\\') ++end;
            ++end;
        }
        end = std::min(end, logical.size());
        std::size_t value_start = end;
        while (value_start < logical.size() && is_blank(logical[value_start])) ++value_start;
        if (value_start < logical.size() && (logical[value_start] == '=' || logical[value_start] == ':')) ++value_start;
        while (value_start < logical.size() && is_blank(logical[value_start])) ++value_start;
        entries.push_back({unescape(logical.substr(0, end)), unescape(logical.substr(value_start)), line_number});
    }
    return entries;
}

}  // namespace outbox::util
