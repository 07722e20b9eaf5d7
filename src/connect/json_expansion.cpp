#include "outbox/connect/json_expansion.hpp"

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/expanded_schema.hpp"
#include "outbox/connect/java_text.hpp"
#include "outbox/connect/json_nesting.hpp"

#include <cstdint>
#include <algorithm>
#include <cmath>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <vector>

namespace outbox::connect {
namespace {

// Well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing past U+10FFFF). Text from a
// database in another encoding (SQL_ASCII) may hold anything; the payload is then kept as it was.
bool is_valid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = 0;
        std::uint32_t code = 0;
        if ((byte & 0xE0) == 0xC0) length = 2, code = byte & 0x1F;
        else if ((byte & 0xF0) == 0xE0) length = 3, code = byte & 0x0F;
        else if ((byte & 0xF8) == 0xF0) length = 4, code = byte & 0x07;
        else return false;
        if (i + length > text.size()) return false;
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) return false;
            code = code << 6 | (next & 0x3F);
        }
        constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        i += length;
    }
    return true;
}

// Keeps the document's field order, as Jackson does (jsonb text is already in jsonb's order).
using Json = nlohmann::ordered_json;

class Shaper {
public:
    explicit Shaper(const JsonExpansion& options) : options_(options) {}

    void shape(Json& value) const {
        if (value.is_object())
            shape_object(value);
        else if (value.is_array())
            shape_array(value);
    }

private:
    bool dropped(const Json& field) const {
        if (field.is_null()) return options_.nulls == config::JsonNullBehavior::ignore;
        return field.is_array() && field.empty() && options_.empty_arrays == config::JsonEmptyArrayBehavior::ignore;
    }

    void shape_object(Json& object) const {
        for (auto field = object.begin(); field != object.end();) {
            if (dropped(*field)) {
                field = object.erase(field);
            } else {
                shape(*field);
                ++field;
            }
        }
    }

    void shape_array(Json& array) const {
        std::vector<std::string> union_fields;
        std::vector<Json> shaped(array.size());  // the shaped copy of each object element
        bool has_objects = false;
        for (std::size_t i = 0; i < array.size(); ++i) {
            if (!array[i].is_object()) {
                shape(array[i]);
                continue;
            }
            has_objects = true;
            shaped[i] = array[i];
            shape_object(shaped[i]);
            for (const auto& field : shaped[i].items())
                if (std::find(union_fields.begin(), union_fields.end(), field.key()) == union_fields.end())
                    union_fields.push_back(field.key());
        }
        if (!has_objects) return;
        for (std::size_t i = 0; i < array.size(); ++i) {
            if (!array[i].is_object()) continue;
            Json merged = Json::object();
            for (const auto& name : union_fields) {
                if (const auto found = shaped[i].find(name); found != shaped[i].end()) {
                    merged[name] = std::move(*found);
                } else if (const auto own = array[i].find(name); own != array[i].end()) {
                    merged[name] = *own;  // this element's own null or [], dropped only from the shape
                } else {
                    merged[name] = nullptr;
                }
            }
            array[i] = std::move(merged);
        }
    }

    const JsonExpansion& options_;
};

// Compact JSON as JsonConverter (Jackson) writes the expanded struct: doubles in Java's text
// ("1.0E20"), strings escaped as Jackson escapes them.
void write_json(std::string& out, const Json& value) {
    switch (value.type()) {
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [name, field] : value.items()) {
                if (!std::exchange(first, false)) out += ',';
                append_json_string(out, name);
                out += ':';
                write_json(out, field);
            }
            out += '}';
            return;
        }
        case Json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& element : value) {
                if (!std::exchange(first, false)) out += ',';
                write_json(out, element);
            }
            out += ']';
            return;
        }
        case Json::value_t::string: append_json_string(out, value.get_ref<const std::string&>()); return;
        case Json::value_t::number_float: append_jackson_double(out, value.get<double>()); return;
        default: out += value.dump(); return;
    }
}

// The first JSON document of `text` as Jackson's ObjectMapper.readTree reads it with Debezium's
// defaults: what follows the document is ignored (FAIL_ON_TRAILING_TOKENS is off), a number
// past a double's range is an infinity and one below it zero (Double.parseDouble), a number of
// more than 1,000 digits (a lone leading zero uncounted) or nesting deeper than 1,000 levels is
// refused (StreamReadConstraints), and an escaped UTF-16 surrogate without its pair is a lone
// char, held in its three-byte form (which append_json_string escapes again, as Jackson writes
// it, and Struct text writes as Java's UTF-8 encoder does, '?'). An integer past 64 bits, a
// BigInteger there, is held as binary (has_big_integer); a repeated field's last value replaces it.
class JacksonReader {
public:
    explicit JacksonReader(std::string_view text) : text_(text) {}

    // The document, or why Jackson refuses it.
    std::optional<std::string> read(Json& document) {
        try {
            skip_blanks();
            document = value(0);
            return std::nullopt;
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
    }

private:
    std::string_view text_;
    std::size_t at_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument(what + " at character " + std::to_string(at_));
    }
    char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
    bool at_end() const { return at_ >= text_.size(); }
    void skip_blanks() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++at_;
    }
    void expect(char c) {
        if (at_end() || peek() != c) fail(std::string("expected '") + c + "'");
        ++at_;
    }

    Json value(std::size_t depth) {
        if (at_end()) fail("unexpected end of input");
        const char c = peek();
        if (c == '{' || c == '[') {
            if (depth + 1 > kMaxJsonNesting)
                fail("nesting deeper than " + std::to_string(kMaxJsonNesting) + " levels");
            return c == '{' ? object(depth + 1) : array(depth + 1);
        }
        if (c == '"') return Json(string());
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        for (const auto& [word, literal] : {std::pair<std::string_view, Json>{"true", Json(true)},
                                            {"false", Json(false)}, {"null", Json(nullptr)}}) {
            if (text_.substr(at_, word.size()) == word) {
                at_ += word.size();
                // Jackson reads a literal's letters up to the next delimiter: `truex` is invalid.
                if (!at_end() && std::isalnum(static_cast<unsigned char>(peek()))) fail("unrecognized token");
                return literal;
            }
        }
        fail("unexpected character");
    }

    Json object(std::size_t depth) {
        ++at_;
        Json out = Json::object();
        skip_blanks();
        if (peek() == '}') {
            ++at_;
            return out;
        }
        for (;;) {
            skip_blanks();
            if (peek() != '"') fail("expected a field name");
            std::string name = string();
            skip_blanks();
            expect(':');
            skip_blanks();
            out[name] = value(depth);  // a repeated name keeps its first place and its last value
            skip_blanks();
            if (peek() == ',') {
                ++at_;
                continue;
            }
            expect('}');
            return out;
        }
    }

    Json array(std::size_t depth) {
        ++at_;
        Json out = Json::array();
        skip_blanks();
        if (peek() == ']') {
            ++at_;
            return out;
        }
        for (;;) {
            skip_blanks();
            out.push_back(value(depth));
            skip_blanks();
            if (peek() == ',') {
                ++at_;
                continue;
            }
            expect(']');
            return out;
        }
    }

    unsigned hex4() {
        if (at_ + 4 > text_.size()) fail("unterminated \\u escape");
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[at_++];
            value <<= 4;
            if (c >= '0' && c <= '9') value |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') value |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') value |= static_cast<unsigned>(c - 'A' + 10);
            else fail("invalid \\u escape");
        }
        return value;
    }

    static void append_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | code >> 6);
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | code >> 12);
            out += static_cast<char>(0x80 | (code >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | code >> 18);
            out += static_cast<char>(0x80 | (code >> 12 & 0x3F));
            out += static_cast<char>(0x80 | (code >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string string() {
        ++at_;
        std::string out;
        for (;;) {
            if (at_end()) fail("unterminated string");
            const char c = text_[at_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("unescaped control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_end()) fail("unterminated string");
            const char e = text_[at_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code <= 0xDBFF && text_.substr(at_, 2) == "\\u") {
                        const std::size_t saved = at_;
                        at_ += 2;
                        const unsigned low = hex4();
                        if (low >= 0xDC00 && low <= 0xDFFF) {
                            append_utf8(out, 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00));
                            break;
                        }
                        at_ = saved;
                    }
                    append_utf8(out, code);
                    break;
                }
                default: fail("unrecognized escape");
            }
        }
    }

    Json number() {
        const std::size_t start = at_;
        const auto digits = [&] {
            const std::size_t first = at_;
            while (std::isdigit(static_cast<unsigned char>(peek()))) ++at_;
            return at_ - first;
        };
        if (peek() == '-') ++at_;
        std::size_t length = 0;  // as StreamReadConstraints counts it (maxNumberLength 1000)
        if (peek() == '0') {
            ++at_;  // a lone leading zero does not count
            if (std::isdigit(static_cast<unsigned char>(peek()))) fail("leading zeroes are not allowed");
        } else if (std::isdigit(static_cast<unsigned char>(peek()))) {
            length = digits();
        } else {
            fail("expected a digit");
        }
        bool integral = true;
        if (peek() == '.') {
            integral = false;
            ++at_;
            const std::size_t fraction = digits();
            if (fraction == 0) fail("expected a digit after the decimal point");
            length += fraction;
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            ++at_;
            if (peek() == '+' || peek() == '-') ++at_;
            const std::size_t exponent = digits();
            if (exponent == 0) fail("expected a digit in the exponent");
            length += exponent;
        }
        if (length > 1000) fail("a number of more than 1000 digits");
        const std::string token(text_.substr(start, at_ - start));
        if (integral) {
            std::int64_t value = 0;
            const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
            if (error == std::errc()) return Json(value);
            // A BigInteger: held as binary, which no JSON text gives, for has_big_integer.
            return Json::binary(std::vector<std::uint8_t>(token.begin(), token.end()));
        }
        return Json(std::strtod(token.c_str(), nullptr));
    }
};

}  // namespace

// Whether a field named "" keeps its value after shaping (Connect's struct fields need a name).
bool JsonExpansion::has_kept_empty_name(const nlohmann::ordered_json& value) const {
    if (value.is_array())
        return std::any_of(value.begin(), value.end(), [&](const Json& element) { return has_kept_empty_name(element); });
    if (!value.is_object()) return false;
    for (const auto& [name, field] : value.items()) {
        const bool dropped = field.is_null() ? nulls == config::JsonNullBehavior::ignore
                                             : field.is_array() && field.empty() &&
                                                   empty_arrays == config::JsonEmptyArrayBehavior::ignore;
        if (dropped) continue;
        if (name.empty() || has_kept_empty_name(field)) return true;
    }
    return false;
}

namespace {

bool has_big_integer(const Json& value) {
    if (value.is_binary()) return true;
    if (value.is_array() || value.is_object())
        return std::any_of(value.begin(), value.end(), [](const Json& element) { return has_big_integer(element); });
    return false;
}

std::string big_integer_refusal() {
    return "it holds an integer past 64 bits, which Debezium's task fails on (and which a double would round)";
}

}  // namespace

std::optional<std::string> JsonExpansion::expand(std::string_view text, std::string& out, std::string_view payload_name,
                                                 SchemaPtr* schema) const {
    const bool shape_freely = free_shapes && schema == nullptr;
    // Debezium parses only text starting with { or [ (not a blank or a byte-order mark first);
    // as JSON without schemas the router also takes blanks before it.
    const auto first = text.find_first_not_of(" \t\n\r");
    if (text.empty() || (text[0] != '{' && text[0] != '[' &&
                         !(shape_freely && first != std::string_view::npos && (text[first] == '{' || text[first] == '['))))
        return std::string("it does not start with { or [");
    if (!is_valid_utf8(text)) return std::string("it is not valid UTF-8");
    Json document;
    JacksonReader reader(text);
    if (const auto invalid = reader.read(document)) return "it is not valid JSON (" + *invalid + ")";
    if (has_big_integer(document)) return big_integer_refusal();
    if (has_kept_empty_name(document))
        return std::string("it has an empty field name (with a value), which Debezium's expansion fails on");
    // Without Connect schemas, what Debezium infers no schema for because types are mixed (and
    // a top-level array, on which its task fails) is expanded all the same.
    const auto shaped = [&]() -> std::optional<std::string> {
        Shaper(*this).shape(document);
        out.clear();
        write_json(out, document);
        return std::nullopt;
    };
    if (document.is_array()) {
        if (!shape_freely)
            return std::string("it is a JSON array, and Debezium expands only objects (its task fails on an array)");
        // Debezium keeps an array it infers no schema for (its task fails only on one it does).
        try {
            if (!infer_expanded_schema(document, payload_name, nulls, empty_arrays))
                return std::string("it is an empty JSON array, which Debezium infers no schema for");
        } catch (const SchemaInferenceError& e) {
            if (!e.mixed_types) return std::string("Debezium infers no Connect schema for it: ") + e.what();
        }
        return shaped();
    }
    std::shared_ptr<const ExpandedSchema> inferred;
    try {
        inferred = infer_expanded_schema(document, payload_name, nulls, empty_arrays);
    } catch (const SchemaInferenceError& e) {
        if (shape_freely && e.mixed_types) return shaped();
        return std::string("Debezium infers no Connect schema for it: ") + e.what();
    }
    if (const auto misfit = expanded_value_misfit(*inferred, document)) {
        if (shape_freely) return shaped();
        return "its values do not fit the Connect schema Debezium infers for it, which fails Debezium's task: " +
               *misfit;
    }
    out.clear();
    append_expanded_value(out, *inferred, document);
    if (schema) *schema = connect_schema_of(*inferred);
    return std::nullopt;
}

}  // namespace outbox::connect
