#pragma once

#include <string>
#include <utility>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/kafka/handles.hpp"

namespace outbox::kafka {

// A librdkafka configuration from the kafka section (each property with its file:line in
// errors), the embedded cluster's address when given, then `overrides`.
ConfPtr client_conf(const config::KafkaSettings& settings, const std::string& bootstrap_servers,
                    const std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace outbox::kafka
