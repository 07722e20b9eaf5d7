#include "outbox/router/message_row.hpp"

#include <cstdint>

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/json_nesting.hpp"

namespace outbox::router {

std::optional<std::string> MessageRow::parse(std::string_view content, std::string_view timestamp_field) {
    columns_.clear();
    values_.clear();
    texts_.clear();
    if (const auto too_deep = json_nesting_error(content)) return "the content " + *too_deep;
    try {
        document_ = nlohmann::ordered_json::parse(content);
    } catch (const nlohmann::ordered_json::parse_error& e) {
        return std::string("the content is not valid JSON (") + e.what() + ")";
    } catch (const nlohmann::ordered_json::exception& e) {
        return std::string("the content cannot be read (") + e.what() + ")";
    }
    if (!document_.is_object())
        return std::string("the content is a JSON ") + document_.type_name() + ", not an object of outbox fields";
    texts_.reserve(document_.size());
    for (auto field = document_.cbegin(); field != document_.cend(); ++field) {
        const std::string& name = field.key();
        const auto& value = field.value();
        std::uint32_t type = pg_oid::kText;
        pgoutput::ColumnValue column{pgoutput::ValueKind::text, {}};
        switch (value.type()) {
            case nlohmann::ordered_json::value_t::null:
                type = pg_oid::kUnknown;
                column.kind = pgoutput::ValueKind::null;
                break;
            case nlohmann::ordered_json::value_t::string:
                column.data = value.get_ref<const std::string&>();
                if (name == timestamp_field) type = pg_oid::kTimestamptz;
                break;
            case nlohmann::ordered_json::value_t::boolean:
                type = pg_oid::kBool;
                column.data = value.get<bool>() ? "t" : "f";
                break;
            case nlohmann::ordered_json::value_t::number_integer:
                type = pg_oid::kInt8;
                column.data = texts_.emplace_back(value.dump());
                break;
            case nlohmann::ordered_json::value_t::number_unsigned:
                // nlohmann keeps every non-negative integer unsigned; only those past bigint are not bigint.
                type = value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX) ? pg_oid::kInt8
                                                                                           : pg_oid::kNumeric;
                column.data = texts_.emplace_back(value.dump());
                break;
            case nlohmann::ordered_json::value_t::number_float:
                type = pg_oid::kFloat8;
                column.data = texts_.emplace_back(value.dump());
                break;
            default:
                type = pg_oid::kJson;
                column.data = texts_.emplace_back(value.dump());
                break;
        }
        columns_.push_back({0, name, type, -1});
        values_.push_back(column);
    }
    return std::nullopt;
}

}  // namespace outbox::router
