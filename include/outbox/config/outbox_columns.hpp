#pragma once

#include <string>
#include <vector>

#include "outbox/config/config.hpp"

namespace outbox::config {

// The columns every outbox table must have, each named by a setting; in this order the router
// binds them.
struct RequiredColumn {
    const std::string OutboxSettings::*column;
    const char* option;
};
inline constexpr RequiredColumn kRequiredOutboxColumns[] = {
    {&OutboxSettings::field_event_id, "outbox.table.field.event.id"},
    {&OutboxSettings::field_event_key, "outbox.table.field.event.key"},
    {&OutboxSettings::field_event_payload, "outbox.table.field.event.payload"},
    {&OutboxSettings::route_by_field, "outbox.route.by.field"},
};
inline constexpr const char* kTimestampColumnOption = "outbox.table.field.event.timestamp";

// The columns `settings` need that `columns` (a table's, as read from the catalog at start-up)
// lacks, as "column (outbox.option)" texts: the required ones and the timestamp column if set.
std::vector<std::string> missing_outbox_columns(const std::vector<std::string>& columns,
                                                const OutboxSettings& settings);

}  // namespace outbox::config
