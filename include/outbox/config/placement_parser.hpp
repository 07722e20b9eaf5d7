#pragma once

#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"

namespace outbox::config {

// Parses Debezium's table.fields.additional.placement list, e.g.
// "type:header:eventType, aggregateid:envelope, shard:partition". Items and their parts are
// trimmed and placement words are case-insensitive, as in Debezium. Everything Debezium would
// only trip over at run time (an item that is not column:placement[:alias], an empty item, an
// unknown placement) and everything that cannot give a sensible record (two envelope fields
// with one name, an envelope field named "payload", two partition placements) throws
// std::invalid_argument naming the item.
std::vector<AdditionalField> parse_additional_placements(std::string_view list);

}  // namespace outbox::config
