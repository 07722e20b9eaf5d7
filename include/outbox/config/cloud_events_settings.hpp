#pragma once

#include <string>
#include <vector>

#include "outbox/config/yaml_entries.hpp"

namespace outbox::config {

// Whether `e` (a top-level value.converter) names Debezium's CloudEventsConverter.
bool names_cloud_events_converter(const Entry& e);

// Whether a top-level key is one of the CloudEventsConverter's value.converter.* settings.
bool is_cloud_events_key(const std::string& name);

// The CloudEventsConverter's settings from `converter` (value.converter) and its
// value.converter.* entries; what the router cannot write as Debezium does is refused naming
// file:line and the key.
CloudEventsSettings read_cloud_events(const Entry& converter, const std::vector<Entry>& entries);

// What CloudEvents need from the rest of the config: topic.prefix (the source attribute), with
// extension attributes the database named in postgres.conninfo (kept in the settings), and,
// unless the type is generated, a `type` header placement in every outbox block.
void check_cloud_events(Config& config);

}  // namespace outbox::config
