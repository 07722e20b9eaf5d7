#pragma once

#include "outbox/router/connect_model.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/pgoutput/messages.hpp"

namespace outbox::router {

// A logical decoding message's content, a JSON object, seen as an outbox row: each field is a
// column, typed like the PostgreSQL column it stands in for, so that it routes exactly as a
// table row would. Strings are text, integers bigint, other numbers numeric, booleans boolean,
// objects and arrays json (their compact text), null is an untyped NULL. A string in the timestamp field
// is a timestamptz text (ISO 8601 accepted).
class MessageRow {
public:
    // Returns why the content is not a JSON object. Views stay valid until the next parse.
    std::optional<std::string> parse(std::string_view content, std::string_view timestamp_field);

    std::span<const pgoutput::RelationColumn> columns() const { return columns_; }
    pgoutput::Tuple values() const { return values_; }

private:
    nlohmann::ordered_json document_;
    std::vector<std::string> texts_;  // numbers and json written out; reserved up front, never moved
    std::vector<pgoutput::RelationColumn> columns_;
    std::vector<pgoutput::ColumnValue> values_;
};

}  // namespace outbox::router
