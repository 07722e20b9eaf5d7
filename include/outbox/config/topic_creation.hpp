#pragma once

#include <string>
#include <vector>

#include "outbox/config/yaml_entries.hpp"

namespace outbox::config {

// Reads the top-level `topic.creation.*` entries; every error names file:line and the key.
TopicCreation read_topic_creation(const std::vector<Entry>& entries, const std::string& file);

}  // namespace outbox::config
