#pragma once

#include <string>

#include "outbox/connect/connect_value.hpp"

namespace outbox::connect {

// What Debezium's value converters write for a NULL in a NOT NULL column whose schema has no
// default (JdbcValueConverters.convertValue's fallback): zero, false, the empty string or bytes,
// the epoch, midnight, an empty array or map, the origin. pgoutput leaves such a column out of
// an old key when it is outside the replica identity (a message.key.columns column).
// Given as PostgreSQL text and the type that converts it to exactly that value, so that every
// converter writes it as it writes the column's values.
struct NotNullFallback {
    ColumnType type;
    std::string text;
};

NotNullFallback not_null_fallback(const ColumnType& type, const config::ValueModes& modes);

}  // namespace outbox::connect
