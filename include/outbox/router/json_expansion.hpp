#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"

namespace outbox::router {

// Debezium's table.expand.json.payload without Kafka Connect schemas: the payload text parsed
// and written back as compact JSON, shaped the way Debezium's inferred schema shapes it.
//  - Object fields whose value is null are dropped (json.payload.null.behavior ignore) or kept.
//  - Object fields holding an empty array are dropped (empty.array.behavior ignore) or kept.
//  - Objects inside one array share their fields: each lists every field any of them has
//    (in order of first appearance), null where it has none, as Debezium's merged element
//    schema does. An element's own null or [] stays as it was.
// Where Debezium gives up on a valid document (arrays mixing types or number kinds, a
// top-level array), the document is expanded all the same: without Connect schemas nothing
// needs arrays to be homogeneous.
struct JsonExpansion {
    config::JsonNullBehavior nulls = config::JsonNullBehavior::ignore;
    config::JsonEmptyArrayBehavior empty_arrays = config::JsonEmptyArrayBehavior::ignore;

    // Writes the expanded document to `out`. Returns why it cannot when `text` is not a JSON
    // object or array (the caller keeps the payload as it was, as Debezium does).
    std::optional<std::string> expand(std::string_view text, std::string& out) const;
};

}  // namespace outbox::router
