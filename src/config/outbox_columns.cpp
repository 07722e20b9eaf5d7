#include "outbox/config/outbox_columns.hpp"

#include <algorithm>

namespace outbox::config {

std::vector<std::string> missing_outbox_columns(const std::vector<std::string>& columns,
                                                const OutboxSettings& settings) {
    std::vector<std::string> missing;
    const auto check = [&](const std::string& wanted, const char* option) {
        if (std::find(columns.begin(), columns.end(), wanted) == columns.end())
            missing.push_back("\"" + wanted + "\" (" + option + ")");
    };
    for (const auto& required : kRequiredOutboxColumns) check(settings.*required.column, required.option);
    if (!settings.field_event_timestamp.empty()) check(settings.field_event_timestamp, kTimestampColumnOption);
    return missing;
}

}  // namespace outbox::config
