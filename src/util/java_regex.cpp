#define PCRE2_CODE_UNIT_WIDTH 8
#include "outbox/util/java_regex.hpp"

#include <pcre2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace outbox {
namespace {

using Ranges = std::vector<std::pair<char32_t, char32_t>>;
constexpr char32_t kMaxCodePoint = 0x10FFFF;

std::vector<char32_t> decode_utf8(std::string_view text) {
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const int length = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3 : (lead >> 3) == 30 ? 4 : 0;
        if (length == 0 || i + length > text.size()) throw JavaRegexError("the pattern is not UTF-8 text");
        char32_t code = length == 1 ? lead : lead & (0x7F >> length);
        for (int k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) throw JavaRegexError("the pattern is not UTF-8 text");
            code = code << 6 | (next & 0x3F);
        }
        out.push_back(code);
        i += length;
    }
    return out;
}

bool is_ascii_alpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char32_t c) { return is_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char32_t c) { return is_ascii_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }
char32_t swap_ascii_case(char32_t c) { return is_ascii_alpha(c) ? c ^ 0x20 : c; }

// Java's Pattern.RemoveQEQuoting, run before parsing: \Q...\E becomes escaped literals.
std::vector<char32_t> remove_qe_quoting(const std::vector<char32_t>& in) {
    std::size_t i = 0;
    while (i + 1 < in.size()) {
        if (in[i] != '\\') i += 1;
        else if (in[i + 1] != 'Q') i += 2;
        else break;
    }
    if (i + 1 >= in.size()) return in;
    std::vector<char32_t> out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
    i += 2;
    bool in_quote = true, begin_quote = true;
    while (i < in.size()) {
        const char32_t c = in[i++];
        if (c >= 0x80 || is_ascii_alpha(c)) {
            out.push_back(c);
        } else if (is_ascii_digit(c)) {
            if (begin_quote) out.insert(out.end(), {'\\', 'x', '3'});
            out.push_back(c);
        } else if (c != '\\') {
            if (in_quote) out.push_back('\\');
            out.push_back(c);
        } else if (in_quote) {
            if (i < in.size() && in[i] == 'E') {
                ++i;
                in_quote = false;
            } else {
                out.insert(out.end(), {'\\', '\\'});
            }
        } else if (i < in.size() && in[i] == 'Q') {
            ++i;
            in_quote = begin_quote = true;
            continue;
        } else {
            out.push_back(c);
            if (i != in.size()) out.push_back(in[i++]);
        }
        begin_quote = false;
    }
    return out;
}

// PCRE2 (UTF) refuses surrogate code points in \x{}; no UTF-8 subject holds one, so a range
// only loses its surrogate part.
void append_ranges(std::string& out, const Ranges& ranges) {
    for (auto [low, high] : ranges) {
        if (low >= 0xD800 && low <= 0xDFFF) low = 0xE000;
        if (high >= 0xD800 && high <= 0xDFFF) high = 0xD7FF;
        if (low > high) continue;
        char item[40];
        if (low == high) std::snprintf(item, sizeof item, "\\x{%X}", static_cast<unsigned>(low));
        else std::snprintf(item, sizeof item, "\\x{%X}-\\x{%X}", static_cast<unsigned>(low), static_cast<unsigned>(high));
        out += item;
    }
}

Ranges complement(Ranges ranges) {
    std::sort(ranges.begin(), ranges.end());
    Ranges out;
    char32_t next = 0;
    for (const auto& [low, high] : ranges) {
        if (low > next) out.push_back({next, low - 1});
        if (high + 1 > next) next = high + 1;
    }
    if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
    return out;
}

const std::string kAnyCodePoint = "[\\x{0}-\\x{10FFFF}]";

// One code point's worth of pattern: class content usable inside [...] where possible, else
// an expression matching exactly one code point.
struct CharSet {
    bool flat = true;
    std::string text;  // flat: class content; else an expression
    bool empty() const { return flat && text.empty(); }
    std::string expression() const { return flat ? (text.empty() ? "(?!)" : "[" + text + "]") : text; }
};

CharSet flat_ranges(const Ranges& ranges) {
    CharSet set;
    append_ranges(set.text, ranges);
    if (set.text.empty()) return {false, "(?!)"};  // only surrogates: nothing a UTF-8 subject holds
    return set;
}

CharSet union_of(const std::vector<CharSet>& items) {
    if (std::all_of(items.begin(), items.end(), [](const CharSet& s) { return s.flat; })) {
        CharSet set;
        for (const auto& item : items) set.text += item.text;
        return set;
    }
    std::string expression = "(?:";
    for (std::size_t i = 0; i < items.size(); ++i) expression += (i ? "|" : "") + items[i].expression();
    return {false, expression + ")"};
}

CharSet negation_of(const CharSet& set) {
    if (set.flat && !set.text.empty()) return {false, "[^" + set.text + "]"};
    return {false, "(?:(?!" + set.expression() + ")" + kAnyCodePoint + ")"};
}

CharSet intersection_of(const CharSet& left, const CharSet& right) {
    return {false, "(?:(?=" + left.expression() + ")" + right.expression() + ")"};
}

struct Flags {
    bool case_insensitive = false;  // (?i) without (?u): ASCII letters only, as Java
    bool dot_all = false;
};

const Ranges kDigit = {{'0', '9'}};
const Ranges kSpace = {{'\t', '\r'}, {' ', ' '}};
const Ranges kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
const Ranges kHorizontalSpace = {{'\t', '\t'}, {' ', ' '},       {0xA0, 0xA0},     {0x1680, 0x1680},
                                 {0x180E, 0x180E}, {0x2000, 0x200A}, {0x202F, 0x202F}, {0x205F, 0x205F},
                                 {0x3000, 0x3000}};
const Ranges kVerticalSpace = {{'\n', '\r'}, {0x85, 0x85}, {0x2028, 0x2029}};

// Java's US-ASCII POSIX classes (\p{Lower} ...), and its Latin-1 and ASCII ranges.
std::optional<Ranges> posix_class(const std::string& name, const Flags& flags) {
    const Ranges alpha = {{'A', 'Z'}, {'a', 'z'}};
    const Ranges punct = {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}};
    if (name == "Lower") return flags.case_insensitive ? alpha : Ranges{{'a', 'z'}};
    if (name == "Upper") return flags.case_insensitive ? alpha : Ranges{{'A', 'Z'}};
    if (name == "ASCII") return Ranges{{0, 0x7F}};
    if (name == "Alpha") return alpha;
    if (name == "Digit") return kDigit;
    if (name == "Alnum") return Ranges{{'0', '9'}, {'A', 'Z'}, {'a', 'z'}};
    if (name == "Punct") return punct;
    if (name == "Graph") return Ranges{{'!', '~'}};
    if (name == "Print") return Ranges{{' ', '~'}};
    if (name == "Blank") return Ranges{{'\t', '\t'}, {' ', ' '}};
    if (name == "Cntrl") return Ranges{{0, 0x1F}, {0x7F, 0x7F}};
    if (name == "XDigit") return Ranges{{'0', '9'}, {'A', 'F'}, {'a', 'f'}};
    if (name == "Space") return kSpace;
    if (name == "L1") return Ranges{{0, 0xFF}};
    if (name == "all") return Ranges{{0, kMaxCodePoint}};
    return std::nullopt;
}

// Java's general categories (CharPredicates.forProperty) as PCRE2's; under (?i) Java lets
// Lu, Ll and Lt each match all three. Java and PCRE2 may stand at different Unicode versions.
std::optional<std::string> category(const std::string& name, const Flags& flags) {
    static const std::set<std::string> same = {"Cn", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl", "Zp",
                                               "Cc", "Cf", "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk",
                                               "So", "Pi", "Pf", "L",  "M",  "N",  "Z",  "C",  "P",  "S"};
    if (same.count(name)) return "\\p{" + name + "}";
    if (name == "Lu" || name == "Ll" || name == "Lt") return flags.case_insensitive ? "\\p{L&}" : "\\p{" + name + "}";
    if (name == "LC") return "\\p{L&}";
    if (name == "LD") return "\\p{L}\\p{Nd}";
    return std::nullopt;
}

class Translator {
public:
    explicit Translator(std::string_view pattern) : p_(remove_qe_quoting(decode_utf8(pattern))) {}

    std::string run() {
        Flags flags;
        std::string out = alternation(flags);
        if (!at_end()) fail("Unmatched closing ')'");
        return out;
    }

private:
    std::vector<char32_t> p_;
    std::size_t pos_ = 0;
    std::set<std::string> names_;
    std::size_t depth_ = 0;  // groups and classes open: the translation recurses once per level

    // Bounds the recursion, so that no pattern exhausts the stack.
    struct Nested {
        explicit Nested(Translator& t) : t_(t) {
            if (++t_.depth_ > 200) t_.refuse("nesting groups and classes deeper than 200 levels");
        }
        ~Nested() { --t_.depth_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;
        Translator& t_;
    };

    bool at_end() const { return pos_ >= p_.size(); }
    char32_t peek(std::size_t ahead = 0) const { return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : 0; }
    [[noreturn]] void fail(const std::string& what) const {
        throw JavaRegexError(what + " (near index " + std::to_string(pos_) + ")");
    }
    [[noreturn]] void refuse(const std::string& construct) const {
        throw JavaRegexError(construct + " is not supported (near index " + std::to_string(pos_) + ")");
    }

    std::string alternation(Flags& flags) {
        std::string out = sequence(flags);
        while (!at_end() && peek() == '|') {
            ++pos_;
            out += "|" + sequence(flags);
        }
        return out;
    }

    std::string sequence(Flags& flags) {
        std::string out;
        std::string last;  // the atom a quantifier would apply to ("": none)
        bool last_quantified = false;
        const auto flush = [&] {
            out += last;
            last.clear();
        };
        while (!at_end() && peek() != '|' && peek() != ')') {
            const char32_t c = peek();
            if (c == '{' && (last.empty() || last_quantified)) {
                // Java repeats an empty node there: the counted closure must be valid, and matches nothing.
                flush();
                quantifier();
                last_quantified = true;
                continue;
            }
            if (c == '*' || c == '+' || c == '?' || c == '{') {
                if (last.empty() || last_quantified) fail("Dangling meta character '" + std::string(1, static_cast<char>(c)) + "'");
                // Java matches each repetition under a possessive quantifier on its own and never
                // goes back into it (Curly's possessive match): an atomic group per repetition,
                // where PCRE2's possessive quantifier backtracks between repetitions to find the first.
                const std::string repeat = quantifier();
                const bool possessive = repeat.size() > 1 && repeat.back() == '+';
                last = (possessive ? "(?>" : "(?:") + last + ")" + repeat;
                last_quantified = true;
                continue;
            }
            flush();
            last_quantified = false;
            if (c == '(') {
                ++pos_;
                last = group(flags);
                continue;
            }
            ++pos_;
            if (c == '[') last = character_class(flags, true).expression();
            else if (c == '.') last = flags.dot_all ? kAnyCodePoint : "[^\\n\\r\\x{85}\\x{2028}\\x{2029}]";
            else if (c == '^') last = "^";
            else if (c == '$') last = dollar();
            else if (c == '\\') last = escape_atom(flags);
            else last = literal(c, flags);
        }
        flush();
        return out;
    }

    std::string quantifier() {
        const char32_t c = p_[pos_++];
        std::string out;
        if (c != '{') {
            out = std::string(1, static_cast<char>(c));
        } else {
            const auto number = [&]() -> std::optional<std::uint32_t> {
                if (!is_ascii_digit(peek())) return std::nullopt;
                std::uint64_t n = 0;
                while (is_ascii_digit(peek())) {
                    n = n * 10 + (p_[pos_++] - '0');
                    if (n > 65535) refuse("a repetition count above 65535");
                }
                return static_cast<std::uint32_t>(n);
            };
            const auto low = number();
            if (!low) fail("Illegal repetition");
            out = "{" + std::to_string(*low);
            if (peek() == ',') {
                ++pos_;
                out += ",";
                if (const auto high = number()) {
                    if (*high < *low) fail("Illegal repetition range");
                    out += std::to_string(*high);
                }
            }
            if (peek() != '}') fail("Unclosed counted closure");
            ++pos_;
            out += "}";
        }
        if (peek() == '?' || peek() == '+') out += static_cast<char>(p_[pos_++]);
        return out;
    }

    // Java's `$` (and \Z) without MULTILINE: at the end, or before a final line terminator, but
    // not between \r and \n.
    static std::string dollar() {
        return "(?=(?:\\r\\n|[\\n\\r\\x{85}\\x{2028}\\x{2029}])?\\z)(?!(?<=\\r)\\n)";
    }

    static std::string literal(char32_t c, const Flags& flags) {
        if (c >= 0xD800 && c <= 0xDFFF) return "(?!)";  // a lone surrogate: no UTF-8 subject holds one
        if (flags.case_insensitive && is_ascii_alpha(c)) return "[" + hex(c) + hex(swap_ascii_case(c)) + "]";
        return hex(c);
    }

    static std::string hex(char32_t c) {
        char item[16];
        std::snprintf(item, sizeof item, "\\x{%X}", static_cast<unsigned>(c));
        return item;
    }

    std::string group(Flags& flags) {
        const Nested nested(*this);
        Flags inner = flags;
        std::string open = "(";
        if (peek() == '?') {
            ++pos_;
            if (at_end()) fail("Unknown inline modifier");
            const char32_t kind = p_[pos_++];
            if (kind == ':' || kind == '=' || kind == '!' || kind == '>') {
                open = "(?" + std::string(1, static_cast<char>(kind));
            } else if (kind == '<') {
                const char32_t next = peek();
                if (next == '=' || next == '!') {
                    ++pos_;
                    open = "(?<" + std::string(1, static_cast<char>(next));
                } else {
                    open = "(?<" + group_name() + ">";
                }
            } else if (kind == '$' || kind == '@') {
                fail("Unknown group type");
            } else {
                --pos_;
                inline_flags(inner);
                if (at_end()) fail("Unknown inline modifier");
                const char32_t end = p_[pos_++];
                if (end == ')') {
                    flags = inner;  // until the end of the enclosing group
                    return "";
                }
                if (end != ':') fail("Unknown inline modifier");
                open = "(?:";
            }
        }
        std::string body = alternation(inner);
        if (at_end() || peek() != ')') fail("Unclosed group");
        ++pos_;
        return open + body + ")";
    }

    std::string group_name() {
        std::string name;
        if (!is_ascii_alpha(peek())) fail("capturing group name does not start with a Latin letter");
        while (is_ascii_alpha(peek()) || is_ascii_digit(peek())) name += static_cast<char>(p_[pos_++]);
        if (peek() != '>') fail("named capturing group is missing trailing '>'");
        ++pos_;
        if (!names_.insert(name).second) fail("Named capturing group <" + name + "> is already defined");
        return name;
    }

    void inline_flags(Flags& flags) {
        bool on = true;
        for (;; ++pos_) {
            const char32_t c = peek();
            if (c == '-') {
                on = false;
            } else if (c == 'i') {
                flags.case_insensitive = on;
            } else if (c == 's') {
                flags.dot_all = on;
            } else if (c == 'd' || c == 'm' || c == 'u' || c == 'x' || c == 'U' || c == 'c') {
                if (on) refuse("the inline flag (?" + std::string(1, static_cast<char>(c)) + ")");
            } else {
                return;
            }
        }
    }

    // After a backslash, outside a class.
    std::string escape_atom(const Flags& flags) {
        if (at_end()) fail("Unexpected internal error");
        const char32_t c = peek();
        switch (c) {
            case 'A': ++pos_; return "\\A";
            case 'z': ++pos_; return "\\z";
            case 'Z': ++pos_; return dollar();
            case 'R': ++pos_; return "(?:\\r\\n|[\\n\\x{B}\\f\\r\\x{85}\\x{2028}\\x{2029}])";
            case 'b': case 'B': refuse("the word boundary \\" + std::string(1, static_cast<char>(c)));
            case 'G': refuse("\\G");
            case 'X': refuse("\\X (grapheme cluster)");
            case 'N': refuse("\\N{name}");
            case 'k': refuse("a back reference (\\k<name>)");
            default: break;
        }
        if (c >= '1' && c <= '9') refuse("a back reference (\\" + std::string(1, static_cast<char>(c)) + ")");
        const auto item = escape(flags, false);
        if (item.set) return item.set->expression();
        return literal(item.code, flags);
    }

    struct Escaped {
        char32_t code = 0;
        std::optional<CharSet> set;  // a class (\d, \p{L}, ...) instead of one character
    };

    // After a backslash: a character, or a predefined class or property. Java's escape().
    Escaped escape(const Flags& flags, bool in_range) {
        if (at_end()) fail("Unexpected internal error");
        const char32_t c = p_[pos_++];
        switch (c) {
            case '0': {
                const auto octal = [](char32_t d) { return d >= '0' && d <= '7'; };
                if (!octal(peek())) fail("Illegal octal escape sequence");
                char32_t value = p_[pos_++] - '0';
                if (octal(peek())) {
                    const char32_t second = p_[pos_++] - '0';
                    if (octal(peek()) && value <= 3) value = value * 64 + second * 8 + (p_[pos_++] - '0');
                    else value = value * 8 + second;
                }
                return {value, {}};
            }
            case 'a': return {7, {}};
            case 'e': return {27, {}};
            case 'f': return {12, {}};
            case 'n': return {'\n', {}};
            case 'r': return {'\r', {}};
            case 't': return {'\t', {}};
            case 'c':
                if (at_end()) fail("Illegal control escape sequence");
                return {p_[pos_++] ^ 64, {}};
            case 'x': return {hex_escape(), {}};
            case 'u': return {unicode_escape(), {}};
            case 'd': return {0, flat_ranges(kDigit)};
            case 'D': return {0, flat_ranges(complement(kDigit))};
            case 's': return {0, flat_ranges(kSpace)};
            case 'S': return {0, flat_ranges(complement(kSpace))};
            case 'w': return {0, flat_ranges(kWord)};
            case 'W': return {0, flat_ranges(complement(kWord))};
            case 'h': return {0, flat_ranges(kHorizontalSpace)};
            case 'H': return {0, flat_ranges(complement(kHorizontalSpace))};
            case 'v':
                if (in_range) return {0x0B, {}};
                return {0, flat_ranges(kVerticalSpace)};
            case 'V': return {0, flat_ranges(complement(kVerticalSpace))};
            case 'p':
            case 'P': return {0, property(c == 'P', flags)};
            default: break;
        }
        if (c < 0x80 && (is_ascii_alpha(c) || is_ascii_digit(c))) {
            --pos_;
            fail("Illegal/unsupported escape sequence");
        }
        return {c, {}};
    }

    char32_t hex_escape() {
        if (is_hex_digit(peek()) && is_hex_digit(peek(1))) {
            const char32_t value = hex_value(peek()) * 16 + hex_value(peek(1));
            pos_ += 2;
            return value;
        }
        if (peek() == '{' && is_hex_digit(peek(1))) {
            ++pos_;
            std::uint64_t value = 0;
            while (is_hex_digit(peek())) {
                value = value * 16 + hex_value(p_[pos_++]);
                if (value > kMaxCodePoint) fail("Hexadecimal codepoint is too big");
            }
            if (peek() != '}') fail("Unclosed hexadecimal escape sequence");
            ++pos_;
            return static_cast<char32_t>(value);
        }
        fail("Illegal hexadecimal escape sequence");
    }

    char32_t four_hex() {
        char32_t value = 0;
        for (int i = 0; i < 4; ++i) {
            if (!is_hex_digit(peek())) fail("Illegal Unicode escape sequence");
            value = value * 16 + hex_value(p_[pos_++]);
        }
        return value;
    }

    // \uXXXX, and a surrogate pair of two such escapes as one code point, as Java reads them.
    char32_t unicode_escape() {
        const char32_t high = four_hex();
        if (high >= 0xD800 && high <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
            const std::size_t saved = pos_;
            pos_ += 2;
            bool hex4 = true;
            for (int i = 0; i < 4; ++i) hex4 = hex4 && is_hex_digit(peek(i));
            if (hex4) {
                const char32_t low = four_hex();
                if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            }
            pos_ = saved;
        }
        return high;
    }

    CharSet property(bool complemented, const Flags& flags) {
        std::string name;
        if (peek() == '{') {
            ++pos_;
            while (!at_end() && peek() != '}') {
                if (p_[pos_] >= 0x80) refuse("a property name outside ASCII");
                name += static_cast<char>(p_[pos_++]);
            }
            if (at_end()) fail("Unclosed character family");
            ++pos_;
            if (name.empty()) fail("Empty character family");
        } else {
            if (at_end()) fail("Illegal character family");
            if (p_[pos_] >= 0x80) refuse("a property name outside ASCII");
            name = std::string(1, static_cast<char>(p_[pos_++]));
        }
        std::optional<CharSet> set;
        const auto eq = name.find('=');
        if (eq != std::string::npos) {
            std::string key = name.substr(0, eq);
            for (auto& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (key == "gc" || key == "general_category") {
                if (const auto c = category(name.substr(eq + 1), flags)) set = CharSet{true, *c};
                else if (const auto r = posix_class(name.substr(eq + 1), flags)) set = flat_ranges(*r);
            } else if (key == "sc" || key == "script" || key == "blk" || key == "block") {
                refuse("the Unicode script or block property \\p{" + name + "}");
            }
            if (!set) fail("Unknown Unicode property {name=<" + key + ">, value=<" + name.substr(eq + 1) + ">}");
        } else if (name.starts_with("In")) {
            refuse("the Unicode block property \\p{" + name + "}");
        } else if (name.starts_with("Is")) {
            // Java tries binary properties (IsAlphabetic, IsLowerCase: Unicode), then
            // categories, then scripts: only categories are translated.
            if (const auto c = category(name.substr(2), flags)) set = CharSet{true, *c};
            else refuse("the Unicode property \\p{" + name + "} (binary properties and scripts)");
        } else if (name.starts_with("java")) {
            refuse("the java.lang.Character property \\p{" + name + "}");
        } else if (const auto c = category(name, flags)) {
            set = CharSet{true, *c};
        } else if (const auto r = posix_class(name, flags)) {
            set = flat_ranges(*r);
        } else {
            fail("Unknown character property name {" + name + "}");
        }
        if (!complemented) return *set;
        if (set->text.starts_with("\\p{") && set->text.find('}') + 1 == set->text.size())
            return CharSet{true, "\\P" + set->text.substr(2)};
        return negation_of(*set);
    }

    // After '[' (consume: the class ends with its own ']', else it is an intersection's right
    // operand that ends before the enclosing class's ']'). Java's Pattern.clazz().
    CharSet character_class(const Flags& flags, bool consume) {
        const Nested nested(*this);
        bool negated = false;
        if (peek() == '^' && pos_ > 0 && p_[pos_ - 1] == '[') {
            ++pos_;
            negated = true;
        }
        std::vector<CharSet> items;  // the union since the last intersection
        std::optional<CharSet> result;  // an intersection made so far
        for (;;) {
            if (at_end()) fail("Unclosed character class");
            const char32_t c = peek();
            if (c == '[') {
                ++pos_;
                items.push_back(character_class(flags, true));
                continue;
            }
            if (c == '&' && peek(1) == '&') {
                pos_ += 2;
                std::vector<CharSet> right;
                while (!at_end() && peek() != ']' && peek() != '&') {
                    if (peek() == '[') {
                        ++pos_;
                        right.push_back(character_class(flags, true));
                    } else {
                        right.push_back(character_class(flags, false));
                    }
                }
                if (right.empty()) refuse("an empty operand of && in a character class");
                if (!at_end() && peek() == '&' && peek(1) != '&')
                    refuse("a character class item after an intersection's bracketed operand");
                if (result) items.insert(items.begin(), *result);
                const CharSet right_set = union_of(right);
                result = items.empty() ? right_set : intersection_of(union_of(items), right_set);
                items.clear();
                continue;
            }
            if (c == ']' && (result || !items.empty())) {
                if (consume) ++pos_;
                if (result) items.insert(items.begin(), *result);
                const CharSet set = union_of(items);
                return negated ? negation_of(set) : set;
            }
            items.push_back(class_item(flags));
        }
    }

    // A character, a range or an escape inside a class. Java's Pattern.range().
    CharSet class_item(const Flags& flags) {
        char32_t first = 0;
        if (peek() == '\\') {
            ++pos_;
            const char32_t c = peek();
            if (c == 'Q' || c == 'E') fail("Illegal/unsupported escape sequence");
            if ((c >= '1' && c <= '9') || c == 'A' || c == 'B' || c == 'G' || c == 'R' || c == 'X' || c == 'Z' ||
                c == 'b' || c == 'k' || c == 'z' || c == 'N')
                fail("Illegal/unsupported escape sequence");
            const bool before_dash = peek(1) == '-';
            const auto item = escape(flags, before_dash);
            if (item.set) return *item.set;
            first = item.code;
        } else {
            first = p_[pos_++];
        }
        if (peek() == '-') {
            const char32_t end = peek(1);
            if (end != '[' && end != ']') {
                ++pos_;
                char32_t last = 0;
                if (peek() == '\\') {
                    ++pos_;
                    const auto item = escape(flags, true);
                    if (item.set) fail("Illegal character range");
                    last = item.code;
                } else {
                    if (at_end()) fail("Illegal character range");
                    last = p_[pos_++];
                }
                if (last < first) fail("Illegal character range");
                Ranges ranges = {{first, last}};
                if (flags.case_insensitive)
                    for (char32_t letter = 'A'; letter <= 'z'; ++letter)
                        if (is_ascii_alpha(letter) && !(letter >= first && letter <= last) &&
                            swap_ascii_case(letter) >= first && swap_ascii_case(letter) <= last)
                            ranges.push_back({letter, letter});
                return flat_ranges(ranges);
            }
        }
        Ranges single = {{first, first}};
        if (flags.case_insensitive && is_ascii_alpha(first)) single.push_back({swap_ascii_case(first), swap_ascii_case(first)});
        return flat_ranges(single);
    }
};

}  // namespace

std::string java_regex_to_pcre2(std::string_view pattern) { return Translator(pattern).run(); }

JavaPattern::JavaPattern(std::string_view pattern) {
    const std::string translated = java_regex_to_pcre2(pattern);
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(), PCRE2_UTF, &error_code,
                          &error_offset, nullptr);
    if (!code_) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error_code, message, sizeof message);
        throw JavaRegexError(std::string(reinterpret_cast<const char*>(message)) + " is not supported");
    }
}

JavaPattern::~JavaPattern() { pcre2_code_free(code_); }

JavaPattern::JavaPattern(JavaPattern&& other) noexcept : code_(std::exchange(other.code_, nullptr)) {}

bool JavaPattern::matches(std::string_view text) const {
    pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_, nullptr);
    const int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
                               PCRE2_ANCHORED | PCRE2_ENDANCHORED, match, nullptr);
    pcre2_match_data_free(match);
    return rc >= 0;
}

}  // namespace outbox
