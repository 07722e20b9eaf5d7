#pragma once

#include <optional>
#include <string>

#include "outbox/util/lsn.hpp"

namespace outbox::replication {

struct SystemIdentity {
    std::string system_id;
    int timeline = 0;
    Lsn wal_position = 0;
    std::string database;
};

// What start-up learned about the source, for the resume log line and the stream.
struct SourceState {
    SystemIdentity identity;
    int server_version = 0;
    bool in_recovery = false;  // a hot standby (logical decoding there: PostgreSQL 16 and later)
    int wal_sender_timeout_ms = 60000;  // 0 means disabled
    Lsn slot_confirmed_lsn = 0;
    // Set once this process has seen them: if either disappears later, events may be gone,
    // and re-creating it silently would hide that.
    bool slot_seen = false;
    bool publication_seen = false;
    // Set when this connection's server is not on the timeline the previous one was: where that
    // timeline ended in this server's history (0 when it is not an ancestor of this timeline).
    std::optional<Lsn> previous_timeline_end;
    int previous_timeline = 0;
    std::string previous_system_id;  // of the previous connection's server
};

}  // namespace outbox::replication
