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
    // Rows a commit-time range could not judge (no commit time known): not replayed, and said so.
    std::size_t unknown_commit_time = 0;
};

// Publishes again the events of the outbox rows in `range` that the tables still hold, routed
// as the stream routes them (the same topic, key, value, headers and, with
// track_commit_timestamp, timestamp), and waits until Kafka has acknowledged every record.
// Order, per table: commit order with track_commit_timestamp (by commit time, to the
// microsecond), else transaction-id order, which `note` then says is not commit order. Rows
// come through a cursor and at most max.inflight.* records are unacknowledged, so memory is
// bounded whatever the range; a slow or paused Kafka is waited for (ReplayPublisher).
// Rows deleted in their own transaction, and logical decoding messages, are not in any table
// and cannot be replayed. `note` gets progress and warnings. Every wait ends when `stopping`
// says so (`stop_fd`, readable then, wakes waits on PostgreSQL). Throws DefiniteError for a row
// that cannot be routed or a record Kafka refuses, TransientError when stopped.
ReplayResult replay(const config::Config& config, const ReplayRange& range,
                    const std::function<void(const std::string&)>& note, const std::function<bool()>& stopping,
                    int stop_fd);

// `outbox-router replay --config FILE [--ids FIRST..LAST] [--since TIME] [--until TIME]`;
// returns the exit status.
int run_replay_command(int argc, char** argv);

}  // namespace outbox::replay
