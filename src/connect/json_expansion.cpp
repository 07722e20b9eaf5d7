#include "outbox/connect/json_expansion.hpp"

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/expanded_schema.hpp"
#include "outbox/connect/java_text.hpp"
#include "outbox/connect/json_nesting.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <vector>

namespace outbox::connect {
namespace {

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
        case Json::value_t::number_float: out += java_double_text(value.get<double>()); return;
        default: out += value.dump(); return;
    }
}

// An integer literal past 64 bits, which Jackson reads as a BigInteger and nlohmann as a double:
// Debezium's record fails on it, and as a double it would lose digits.
bool has_big_integer(std::string_view text) {
    bool in_string = false;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9')) continue;
        std::size_t end = i;
        bool integer = true;
        while (end < text.size() && std::string_view("+-0123456789.eE").find(text[end]) != std::string_view::npos) {
            if (text[end] == '.' || text[end] == 'e' || text[end] == 'E') integer = false;
            ++end;
        }
        if (integer) {
            std::int64_t value = 0;
            const auto [ptr, error] = std::from_chars(text.data() + i, text.data() + end, value);
            if (error == std::errc::result_out_of_range) return true;
        }
        i = end - 1;
    }
    return false;
}

std::string big_integer_refusal() {
    return "it holds an integer past 64 bits, which Debezium's task fails on (and which a double would round)";
}

}  // namespace

std::optional<std::string> JsonExpansion::expand(std::string_view text, std::string& out, std::string_view payload_name,
                                                 SchemaPtr* schema) const {
    if (const auto too_deep = json_nesting_error(text)) return "it " + *too_deep;
    Json document;
    try {
        document = Json::parse(text);
    } catch (const Json::parse_error& e) {
        return std::string("it is not valid JSON (") + e.what() + ")";
    } catch (const Json::exception& e) {
        // Valid JSON the parser still refuses, such as a number beyond a double's range.
        if (has_big_integer(text)) return big_integer_refusal();
        return std::string("it cannot be expanded (") + e.what() + ")";
    }
    if (!document.is_object() && !document.is_array())
        return std::string("it is a JSON ") + document.type_name() + ", not an object or array";
    if (has_big_integer(text)) return big_integer_refusal();
    // Without Connect schemas, what Debezium infers no schema for because types are mixed (and
    // a top-level array, on which its task fails) is expanded all the same.
    const auto shaped = [&]() -> std::optional<std::string> {
        Shaper(*this).shape(document);
        out.clear();
        write_json(out, document);
        return std::nullopt;
    };
    const bool shape_freely = free_shapes && schema == nullptr;
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
