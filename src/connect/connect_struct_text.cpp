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

void append_struct_text_of_json(std::string& out, std::string_view expanded_json) {
    append_value(out, Json::parse(expanded_json));
}

}  // namespace outbox::connect
