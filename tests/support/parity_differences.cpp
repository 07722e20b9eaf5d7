#include "parity_differences.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace outbox::test {
namespace {

// Compact JSON (as JsonConverter writes it; text with blanks is compared as text) as written:
// scalars keep their text, objects their field order, so that bytes can be compared part by part.
struct Node {
    enum class Kind { object, array, string, number, literal } kind = Kind::literal;
    std::string_view text;  // the whole value as written
    std::vector<std::pair<std::string_view, Node>> members;  // object: field (quoted) and value
    std::vector<Node> items;                                 // array
};

class RawJson {
public:
    explicit RawJson(std::string_view text) : text_(text) {}

    std::optional<Node> document() {
        auto node = value();
        if (!node || at_ != text_.size()) return std::nullopt;
        return node;
    }

private:
    bool take(char c) {
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    std::optional<std::string_view> string() {
        const std::size_t start = at_;
        if (at_ >= text_.size() || text_[at_] != '"') return std::nullopt;
        for (++at_; at_ < text_.size(); ++at_) {
            if (text_[at_] == '\\') ++at_;
            else if (text_[at_] == '"') return text_.substr(start, ++at_ - start);
        }
        return std::nullopt;
    }
    std::optional<Node> value() {
        if (at_ >= text_.size()) return std::nullopt;
        Node node;
        const std::size_t start = at_;
        const char c = text_[at_];
        if (c == '{') {
            node.kind = Node::Kind::object;
            ++at_;
            if (!take('}')) {
                do {
                    const auto name = string();
                    if (!name || !take(':')) return std::nullopt;
                    auto member = value();
                    if (!member) return std::nullopt;
                    node.members.emplace_back(*name, std::move(*member));
                } while (take(','));
                if (!take('}')) return std::nullopt;
            }
        } else if (c == '[') {
            node.kind = Node::Kind::array;
            ++at_;
            if (!take(']')) {
                do {
                    auto item = value();
                    if (!item) return std::nullopt;
                    node.items.push_back(std::move(*item));
                } while (take(','));
                if (!take(']')) return std::nullopt;
            }
        } else if (c == '"') {
            node.kind = Node::Kind::string;
            if (!string()) return std::nullopt;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            node.kind = Node::Kind::number;
            while (at_ < text_.size() && std::string_view("0123456789.eE+-").find(text_[at_]) != std::string_view::npos) ++at_;
        } else {
            for (const std::string_view word : {"true", "false", "null"})
                if (text_.substr(at_, word.size()) == word) at_ += word.size();
            if (at_ == start) return std::nullopt;
        }
        node.text = text_.substr(start, at_ - start);
        return node;
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

bool parse_double(std::string_view text, double& value) {
    const std::string copy(text);
    char* end = nullptr;
    value = std::strtod(copy.c_str(), &end);
    return !copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(value);
}

// The significant digits of a number's text: "1.0E23" → "1", "0.00120" → "12".
std::string significant_digits(std::string_view text) {
    std::string digits;
    for (const char c : text) {
        if (c == 'e' || c == 'E') break;
        if (c >= '0' && c <= '9') digits += c;
    }
    const auto first = digits.find_first_not_of('0');
    if (first == std::string::npos) return "0";
    digits.erase(0, first);
    digits.erase(digits.find_last_not_of('0') + 1);
    return digits;
}

// The shortest digits that read back as `value`: scientific, as the plain form writes a whole
// number below 1e17 with all its digits (57125657099119512 for 5.712565709911951E16).
template <typename T>
std::string shortest_digits(T value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    return significant_digits(std::string_view(buffer, static_cast<std::size_t>(result.ptr - buffer)));
}

// Java 17's Double.toString / Float.toString text (`theirs`) and the shortest text (`ours`) of
// the same double or float: the same value, ours with the fewest digits that read back as it,
// theirs with more but no more than the type's digits (17 or 9).
bool java17_number(std::string_view ours, std::string_view theirs) {
    double a = 0, b = 0;
    if (!parse_double(ours, a) || !parse_double(theirs, b)) return false;
    const std::string ours_digits = significant_digits(ours), theirs_digits = significant_digits(theirs);
    if (theirs_digits.size() <= ours_digits.size()) return false;
    if (a == b) return theirs_digits.size() <= 17 && ours_digits == shortest_digits(a);
    const auto fa = std::strtof(std::string(ours).c_str(), nullptr), fb = std::strtof(std::string(theirs).c_str(), nullptr);
    return fa == fb && theirs_digits.size() <= 9 && ours_digits == shortest_digits(fa);
}

bool number_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'; }
bool word_char(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// Text that is not JSON (Struct.toString(), a header's text): the same but for numbers.
bool same_text_but_numbers(std::string_view ours, std::string_view theirs, std::set<std::string_view>& found) {
    std::size_t i = 0, j = 0;
    while (true) {
        while (i < ours.size() && j < theirs.size() && ours[i] == theirs[j]) ++i, ++j;
        if (i == ours.size() && j == theirs.size()) return true;
        std::size_t back = 0;  // the number's start, shared by both
        while (back < i && number_char(ours[i - back - 1])) ++back;
        if (back < i && word_char(ours[i - back - 1])) return false;
        std::size_t end_a = i, end_b = j;
        while (end_a < ours.size() && number_char(ours[end_a])) ++end_a;
        while (end_b < theirs.size() && number_char(theirs[end_b])) ++end_b;
        if ((end_a < ours.size() && word_char(ours[end_a])) || (end_b < theirs.size() && word_char(theirs[end_b])))
            return false;
        if (!java17_number(ours.substr(i - back, end_a - i + back), theirs.substr(j - back, end_b - j + back))) return false;
        found.insert(kJava17Number);
        i = end_a;
        j = end_b;
    }
}

// Kafka Connect's Struct.toString() text (StringConverter's bytes of a structure): structs,
// lists and other values as written. A value's text runs to a comma, brace or bracket outside
// the braces and brackets it opens (a kept JSON payload), so a string holding one of those may
// not parse, and is then compared as text.
struct StructText {
    enum class Kind { structure, list, scalar } kind = Kind::scalar;
    std::string_view text;
    std::vector<std::pair<std::string_view, StructText>> fields;
    std::vector<StructText> items;
};

class StructTextParser {
public:
    explicit StructTextParser(std::string_view text) : text_(text) {}

    std::optional<StructText> document() {
        auto node = value();
        if (!node || at_ != text_.size()) return std::nullopt;
        return node;
    }

private:
    bool take(std::string_view word) {
        if (text_.substr(at_, word.size()) != word) return false;
        at_ += word.size();
        return true;
    }
    std::optional<StructText> value() {
        StructText node;
        const std::size_t start = at_;
        if (take("Struct{")) {
            node.kind = StructText::Kind::structure;
            if (!take("}")) {
                do {
                    const std::size_t name_start = at_;
                    while (at_ < text_.size() && text_[at_] != '=' && text_[at_] != ',' && text_[at_] != '}') ++at_;
                    const auto name = text_.substr(name_start, at_ - name_start);
                    if (!take("=")) return std::nullopt;
                    auto field = value();
                    if (!field) return std::nullopt;
                    node.fields.emplace_back(name, std::move(*field));
                } while (take(","));
                if (!take("}")) return std::nullopt;
            }
        } else if (take("[")) {
            node.kind = StructText::Kind::list;
            if (!take("]")) {
                do {
                    auto item = value();
                    if (!item) return std::nullopt;
                    node.items.push_back(std::move(*item));
                } while (take(", "));
                if (!take("]")) return std::nullopt;
            }
        } else {
            int depth = 0;
            for (; at_ < text_.size(); ++at_) {
                const char c = text_[at_];
                if (depth == 0 && (c == ',' || c == '}' || c == ']')) break;
                if (c == '{' || c == '[') ++depth;
                if (c == '}' || c == ']') --depth;
            }
            if (depth != 0) return std::nullopt;
        }
        node.text = text_.substr(start, at_ - start);
        return node;
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

// Struct text that is the same but for numbers and, inside a list of structs (merged objects of
// an expanded array), the order of fields.
bool same_struct_text(const StructText& ours, const StructText& theirs, bool merged, std::set<std::string_view>& found) {
    if (ours.kind != theirs.kind) return false;
    switch (ours.kind) {
        case StructText::Kind::scalar: return same_text_but_numbers(ours.text, theirs.text, found);
        case StructText::Kind::list: {
            if (ours.items.size() != theirs.items.size()) return false;
            const auto structs = [](const StructText& list) {
                return std::all_of(list.items.begin(), list.items.end(),
                                   [](const StructText& item) { return item.kind == StructText::Kind::structure; });
            };
            const bool of_structs = structs(ours) && structs(theirs);
            for (std::size_t i = 0; i < ours.items.size(); ++i)
                if (!same_struct_text(ours.items[i], theirs.items[i], of_structs, found)) return false;
            return true;
        }
        case StructText::Kind::structure: {
            if (ours.fields.size() != theirs.fields.size()) return false;
            for (std::size_t i = 0; i < ours.fields.size(); ++i) {
                const auto& [name, value] = ours.fields[i];
                const StructText* match = nullptr;
                if (theirs.fields[i].first == name) {
                    match = &theirs.fields[i].second;
                } else if (merged) {
                    for (const auto& [their_name, their_value] : theirs.fields)
                        if (their_name == name) match = &their_value;
                    found.insert(kMergedFieldOrder);
                }
                if (!match || !same_struct_text(value, *match, false, found)) return false;
            }
            return true;
        }
    }
    return false;
}

// A JSON value's Connect kind as Debezium's schema inference sees it.
char kind_of(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::object: return 'o';
        case nlohmann::json::value_t::array: return 'a';
        case nlohmann::json::value_t::string: return 's';
        case nlohmann::json::value_t::boolean: return 'b';
        case nlohmann::json::value_t::number_float: return 'd';
        case nlohmann::json::value_t::number_unsigned:
            return value.get<std::uint64_t>() <= 2147483647u ? 'i' : 'l';
        case nlohmann::json::value_t::number_integer: {
            const auto n = value.get<std::int64_t>();
            return n >= -2147483648LL && n <= 2147483647 ? 'i' : 'l';
        }
        default: return 'n';
    }
}

std::set<char> element_kinds(const nlohmann::json& array) {
    std::set<char> kinds;
    for (const auto& item : array)
        if (!item.is_null()) kinds.insert(kind_of(item));
    return kinds;
}

// Somewhere an array whose elements are of more than one kind: Debezium infers no schema.
bool has_mixed_array(const nlohmann::json& value) {
    if (value.is_array() && element_kinds(value).size() > 1) return true;
    if (value.is_structured())
        for (const auto& item : value)
            if (has_mixed_array(item)) return true;
    return false;
}

// Somewhere an array of objects (or of arrays) whose values do not fit one merged schema: a field
// holding values of several kinds, inner arrays of several element kinds, or a null among objects
// of several shapes.
bool has_merged_misfit(const nlohmann::json& value) {
    if (value.is_array() && element_kinds(value) == std::set<char>{'o'}) {
        std::map<std::string, std::set<char>> field_kinds;
        std::set<std::set<std::string>> shapes;
        bool nulls = false;
        for (const auto& item : value) {
            if (item.is_null()) {
                nulls = true;
                continue;
            }
            std::set<std::string> shape;
            for (auto it = item.begin(); it != item.end(); ++it) {
                shape.insert(it.key());
                if (!it->is_null()) field_kinds[it.key()].insert(kind_of(*it));
            }
            shapes.insert(shape);
        }
        if (nulls && shapes.size() > 1) return true;
        for (const auto& [field, kinds] : field_kinds)
            if (kinds.size() > 1) return true;
    }
    if (value.is_array() && element_kinds(value) == std::set<char>{'a'}) {
        std::set<char> inner;
        for (const auto& item : value)
            if (!item.is_null()) inner.merge(element_kinds(item));
        if (inner.size() > 1) return true;
    }
    if (value.is_structured())
        for (const auto& item : value)
            if (has_merged_misfit(item)) return true;
    return false;
}

// The same document but for fields holding null or [] (which expansion leaves out or merged
// objects add) and the order of fields.
nlohmann::json without_empty_fields(const nlohmann::json& value) {
    if (value.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& item : value) out.push_back(without_empty_fields(item));
        return out;
    }
    if (!value.is_object()) return value;
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it)
        if (!it->is_null() && !(it->is_array() && it->empty())) out[it.key()] = without_empty_fields(*it);
    return out;
}

class Comparison {
public:
    Comparison(const ParityContext& context, std::set<std::string_view>& found) : context_(context), found_(found) {}

    // `items_struct`: a struct schema that is an array's items, whose fields Debezium merged;
    // `merged`: an object inside an array of objects (its fields are the merged struct's).
    bool same(const Node& ours, const Node& theirs, bool merged = false, bool items_struct = false) {
        if (ours.kind != theirs.kind) {
            if (theirs.kind == Node::Kind::string && (ours.kind == Node::Kind::object || ours.kind == Node::Kind::array))
                return mixed_array_expanded(ours, theirs);
            return false;
        }
        switch (ours.kind) {
            case Node::Kind::number:
                if (ours.text == theirs.text) return true;
                return java17_number(ours.text, theirs.text) && note(kJava17Number);
            case Node::Kind::string:
                if (ours.text == theirs.text) return true;
                // A number's text in a string (a header's JSON): the same rule.
                return java17_number(ours.text.substr(1, ours.text.size() - 2), theirs.text.substr(1, theirs.text.size() - 2)) &&
                       note(kJava17Number);
            case Node::Kind::literal: return ours.text == theirs.text;
            case Node::Kind::array: return same_array(ours, theirs, items_struct);
            case Node::Kind::object: return same_object(ours, theirs, merged, items_struct);
        }
        return false;
    }

private:
    bool note(std::string_view reason) {
        found_.insert(reason);
        return true;
    }

    bool same_array(const Node& ours, const Node& theirs, bool fields_of_merged_struct) {
        if (ours.items.size() != theirs.items.size()) return false;
        const auto objects = [](const Node& array) {
            return !array.items.empty() && std::all_of(array.items.begin(), array.items.end(), [](const Node& n) {
                return n.kind == Node::Kind::object || n.text == "null";
            });
        };
        if (fields_of_merged_struct) {
            // A merged struct's field schemas, matched by name.
            std::map<std::string_view, const Node*> by_name;
            for (const auto& field : theirs.items) by_name[field_name(field)] = &field;
            bool reordered = false;
            for (std::size_t i = 0; i < ours.items.size(); ++i) {
                const auto match = by_name.find(field_name(ours.items[i]));
                if (match == by_name.end() || !same(ours.items[i], *match->second)) return false;
                reordered |= match->second != &theirs.items[i];
            }
            if (reordered) found_.insert(kMergedFieldOrder);
            return true;
        }
        const bool merged = objects(ours) && objects(theirs);
        for (std::size_t i = 0; i < ours.items.size(); ++i)
            if (!same(ours.items[i], theirs.items[i], merged)) return false;
        return true;
    }

    static std::string_view field_name(const Node& field_schema) {
        for (const auto& [name, value] : field_schema.members)
            if (name == "\"field\"") return value.text;
        return {};
    }

    bool same_object(const Node& ours, const Node& theirs, bool merged, bool items_struct) {
        if (ours.members.size() != theirs.members.size()) return false;
        const bool array_schema = std::any_of(ours.members.begin(), ours.members.end(), [](const auto& m) {
            return m.first == "\"type\"" && m.second.text == "\"array\"";
        });
        bool reordered = false;
        for (std::size_t i = 0; i < ours.members.size(); ++i) {
            const auto& [name, value] = ours.members[i];
            const Node* match = nullptr;
            if (theirs.members[i].first == name) {
                match = &theirs.members[i].second;
            } else if (merged) {
                for (const auto& [their_name, their_value] : theirs.members)
                    if (their_name == name) match = &their_value;
                reordered = true;
            }
            if (!match) return false;
            const bool child_items_struct = array_schema && name == "\"items\"";
            const bool child_merged_fields = items_struct && name == "\"fields\"";
            if (!same(value, *match, false, child_items_struct || child_merged_fields)) return false;
        }
        if (reordered) found_.insert(kMergedFieldOrder);
        return true;
    }

    // The router's expansion of the payload whose text Debezium kept, where an array mixes types.
    bool mixed_array_expanded(const Node& ours, const Node& theirs) {
        if (!context_.expand || !context_.value_json || context_.value_schemas) return false;
        const auto text = nlohmann::json::parse(theirs.text, nullptr, false);
        if (!text.is_string()) return false;
        const auto source = nlohmann::json::parse(text.get<std::string>(), nullptr, false);
        const auto expanded = nlohmann::json::parse(ours.text, nullptr, false);
        if (source.is_discarded() || expanded.is_discarded() || !has_mixed_array(source)) return false;
        return without_empty_fields(source) == without_empty_fields(expanded) && note(kMixedArrayExpanded);
    }

    const ParityContext& context_;
    std::set<std::string_view>& found_;
};

// Whether the text holds an integer (no fraction or exponent) beyond 64 bits, outside strings.
bool has_big_integer(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
            continue;
        }
        if (text[i] != '-' && (text[i] < '0' || text[i] > '9')) continue;
        std::size_t end = i;
        while (end < text.size() && number_char(text[end])) ++end;
        const auto number = text.substr(i, end - i);
        if (number.find_first_of(".eE") == std::string_view::npos) {
            std::int64_t value = 0;
            if (std::from_chars(number.data(), number.data() + number.size(), value).ec == std::errc::result_out_of_range)
                return true;
        }
        i = end - 1;
    }
    return false;
}

}  // namespace

std::optional<std::set<std::string_view>> documented_differences(std::string_view ours, std::string_view theirs,
                                                                 const ParityContext& context) {
    std::set<std::string_view> found;
    if (ours == theirs) return found;
    auto a = RawJson(ours).document();
    auto b = RawJson(theirs).document();
    if (a && b) {
        if (Comparison(context, found).same(*a, *b)) return found;
        return std::nullopt;
    }
    if (ours.starts_with("Struct{") && theirs.starts_with("Struct{")) {
        auto x = StructTextParser(ours).document();
        auto y = StructTextParser(theirs).document();
        if (x && y) {
            if (same_struct_text(*x, *y, false, found)) return found;
            return std::nullopt;
        }
    }
    if (same_text_but_numbers(ours, theirs, found)) return found;
    return std::nullopt;
}

std::optional<std::string_view> documented_task_failure(std::string_view payload, bool envelope, bool keep_nulls) {
    if (has_big_integer(payload)) return kBigInteger;
    const auto document = nlohmann::json::parse(payload, nullptr, false);
    if (document.is_discarded()) return std::nullopt;
    // No schema at all: the envelope's struct cannot take the payload.
    if (document.is_array() && document.empty()) return envelope ? std::optional(kEmptyArrayEnvelope) : std::nullopt;
    if (document.is_array() && !has_mixed_array(document)) {
        // Debezium keeps one it infers no schema for: only nulls (unless they have one), or an
        // empty array first.
        for (const auto& item : document) {
            if (item.is_null()) continue;
            if (item.is_array() && item.empty()) return std::nullopt;
            return kTopLevelArray;
        }
        return keep_nulls ? std::optional(kTopLevelArray) : std::nullopt;
    }
    if (has_merged_misfit(document)) return kMergedMisfit;
    return std::nullopt;
}

}  // namespace outbox::test
