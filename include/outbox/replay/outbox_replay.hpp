#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "outbox/config/config.hpp"

namespace outbox::replay {

// Which outbox rows to publish again: an id range (table.field.event.id, inclusive, compared
// as the column's type) and/or a commit-time range (since <= commit time < until; needs
// track_commit_timestamp = on, as the rows carry no LSN or commit time of their own).
struct ReplayRange {
    std::optional<std::string> first_id;
    std::optional<std::string> last_id;
    std::optional<std::string> since;  // timestamptz text
    std::optional<std::string> until;
};

struct ReplayResult {
    std::size_t rows = 0;       // rows read from the outbox tables
    std::size_t published = 0;  // records Kafka acknowledged
};

// Publishes again the events of the outbox rows in `range` that the tables still hold, routed
// as the stream routes them (the same topic, key, value, headers and, with
// track_commit_timestamp, timestamp), in commit order per table, and waits until Kafka has
// acknowledged every record. Rows deleted in their own transaction, and logical decoding
// messages, are not in any table and cannot be replayed. `note` gets progress and warnings.
// Throws DefiniteError for a row that cannot be routed or a record Kafka refuses.
ReplayResult replay(const config::Config& config, const ReplayRange& range,
                    const std::function<void(const std::string&)>& note);

// `outbox-router replay --config FILE [--ids FIRST..LAST] [--since TIME] [--until TIME]`;
// returns the exit status.
int run_replay_command(int argc, char** argv);

}  // namespace outbox::replay
