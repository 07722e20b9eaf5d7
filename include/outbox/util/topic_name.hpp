#pragma once

#include <string_view>

namespace outbox {

// Kafka's rule for topic names: 1 to 249 of [a-zA-Z0-9._-], and neither "." nor "..".
bool is_legal_topic_name(std::string_view topic);

}  // namespace outbox
