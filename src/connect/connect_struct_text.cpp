#include "outbox/connect/connect_struct_text.hpp"

#include <nlohmann/json.hpp>

#include "outbox/connect/java_text.hpp"

namespace outbox::connect {
namespace {

using Json = nlohmann::ordered_json;

void append_value(std::string& out, const Json& value) {
    switch (value.type()) {
        case Json::value_t::object: {
            out += "Struct{";
            bool first = true;
            for (const auto& [name, field] : value.items()) {
                if (field.is_null()) continue;  // Struct.toString() leaves null fields out
                if (!std::exchange(first, false)) out += ',';
                out += name;
                out += '=';
                append_value(out, field);
            }
            out += '}';
            return;
        }
        case Json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& element : value) {
                if (!std::exchange(first, false)) out += ", ";
                append_value(out, element);
            }
            out += ']';
            return;
        }
        case Json::value_t::string: out += value.get_ref<const std::string&>(); return;
        case Json::value_t::number_float: out += java_double_text(value.get<double>()); return;
        case Json::value_t::null: out += "null"; return;  // inside a list, as List.toString() prints it
        default: out += value.dump(); return;             // integers and booleans
    }
}

}  // namespace

// An unpaired \\uD800-\\uDFFF escape in a string becomes '?', as Java's String.getBytes(UTF-8)
// writes a lone surrogate (and nlohmann would refuse the escape).
static std::string without_lone_surrogates(std::string_view json) {
    std::string out;
    const auto surrogate_at = [&](std::size_t at, unsigned low, unsigned high) {
        if (at + 6 > json.size() || json[at] != '\\' || json[at + 1] != 'u') return false;
        unsigned code = 0;
        for (std::size_t i = at + 2; i < at + 6; ++i) {
            const char c = json[i];
            code = code << 4 | static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return code >= low && code <= high;
    };
    for (std::size_t i = 0; i < json.size(); ++i) {
        if (json[i] != '\\') {
            out += json[i];
            continue;
        }
        if (surrogate_at(i, 0xD800, 0xDBFF) && surrogate_at(i + 6, 0xDC00, 0xDFFF)) {
            out.append(json, i, 12);
            i += 11;
        } else if (surrogate_at(i, 0xD800, 0xDFFF)) {
            out += '?';
            i += 5;
        } else {
            out.append(json, i, 2);  // any other escape, \\\\ included, as it is
            ++i;
        }
    }
    return out;
}

void append_struct_text_of_json(std::string& out, std::string_view expanded_json) {
    append_value(out, Json::parse(without_lone_surrogates(expanded_json)));
}

}  // namespace outbox::connect
