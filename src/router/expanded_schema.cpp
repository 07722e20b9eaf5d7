#include "outbox/router/expanded_schema.hpp"

#include <limits>
#include <nlohmann/json.hpp>

#include "outbox/router/column_value.hpp"

namespace outbox::router {
namespace {

using Json = nlohmann::ordered_json;

// Returns false where Debezium's inference fails.
bool append_schema(std::string& out, const Json& value, const std::string& name);

bool append_struct(std::string& out, const Json& object, const std::string& name) {
    out += "{\"type\":\"struct\",\"fields\":[";
    bool first = true;
    for (const auto& [field, value] : object.items()) {
        if (!std::exchange(first, false)) out += ',';
        if (!append_schema(out, value, name + "." + field)) return false;
        out.pop_back();
        out += ",\"field\":";
        append_json_string(out, field);
        out += '}';
    }
    out += "],\"optional\":true,\"name\":";
    append_json_string(out, name);
    out += '}';
    return true;
}

// The elements' one schema: objects merged (JsonExpansion already gave each the union of the
// fields), anything else the same for every element.
bool append_array(std::string& out, const Json& array, const std::string& name) {
    std::string items;
    if (array.empty()) {
        items = R"({"type":"string","optional":true})";
    } else if (array.front().is_object()) {
        Json merged = Json::object();
        for (const auto& element : array) {
            if (!element.is_object()) return false;
            for (const auto& [field, value] : element.items())
                if (!merged.contains(field) || merged[field].is_null()) merged[field] = value;
        }
        if (!append_struct(items, merged, name)) return false;
    } else {
        for (const auto& element : array) {
            std::string schema;
            if (!append_schema(schema, element, name)) return false;
            if (!items.empty() && schema != items) return false;
            items = std::move(schema);
        }
    }
    out += "{\"type\":\"array\",\"items\":" + items + ",\"optional\":true}";
    return true;
}

bool append_schema(std::string& out, const Json& value, const std::string& name) {
    switch (value.type()) {
        case Json::value_t::object: return append_struct(out, value, name);
        case Json::value_t::array: return append_array(out, value, name);
        case Json::value_t::string: out += R"({"type":"string","optional":true})"; return true;
        case Json::value_t::boolean: out += R"({"type":"boolean","optional":true})"; return true;
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned: {
            const bool int32 = value.is_number_unsigned()
                                   ? value.get<std::uint64_t>() <= std::numeric_limits<std::int32_t>::max()
                                   : value.get<std::int64_t>() >= std::numeric_limits<std::int32_t>::min() &&
                                         value.get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max();
            if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())
                return false;  // past a long: Debezium's inference fails
            out += int32 ? R"({"type":"int32","optional":true})" : R"({"type":"int64","optional":true})";
            return true;
        }
        case Json::value_t::number_float: out += R"({"type":"double","optional":true})"; return true;
        case Json::value_t::null: out += R"({"type":"bytes","optional":true})"; return true;
        default: return false;
    }
}

}  // namespace

std::optional<std::string> expanded_payload_schema(std::string_view expanded_json, std::string_view payload_name) {
    const Json document = Json::parse(expanded_json);
    if (!document.is_object()) return std::nullopt;
    std::string schema;
    if (!append_struct(schema, document, std::string(payload_name))) return std::nullopt;
    return schema;
}

}  // namespace outbox::router
