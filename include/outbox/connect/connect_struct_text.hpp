#pragma once

#include <string>
#include <string_view>

namespace outbox::connect {

// Kafka Connect's Struct.toString(), which StringConverter writes for a structured value:
// "Struct{name=value,...}" with the fields that are not null, values as Java prints them, lists
// as "[a, b]". This appends the Struct text of an expanded payload (JsonExpansion's compact
// JSON, whose numbers Debezium's inferred schema makes Integer, Long or Double).
void append_struct_text_of_json(std::string& out, std::string_view expanded_json);

}  // namespace outbox::connect
