#pragma once

#include <functional>
#include <set>
#include <string>

#include "outbox/replication/pg_connection.hpp"

namespace outbox::replication {

// Whether a failover to a physical standby keeps the router's promise (PostgreSQL 17 and later,
// with the router's slot created for failover): the standby synchronizes the slot
// (sync_replication_slots, a physical slot of its own on the primary), and the primary's logical
// walsenders wait for that standby (its physical slot in synchronized_standby_slots). Without
// the latter the router may publish transactions the standby never received; after a failover
// to that standby they are phantom events: in Kafka, absent from the database.
class FailoverReadiness {
public:
    // ok: what was found is safe; not ok: a warning (a standby-less server is not an error).
    using Report = std::function<void(bool ok, const std::string& line)>;

    FailoverReadiness(const PgConnection& primary, std::string slot_name, Report report);

    // On the primary: its physical slots, the standbys streaming, synchronized_standby_slots.
    void check_primary();
    // On every other host `conninfo` names (host=a,b): a hot standby with sync_replication_slots
    // and hot_standby_feedback on, and the router's slot synchronized there. Plain SQL
    // connections with a short connect timeout; an unreachable host is reported, not fatal.
    // After check_primary(): the standby's physical slot must be in synchronized_standby_slots.
    void check_standbys(const std::string& conninfo);

private:
    void check_standby(const std::string& conninfo, const std::string& host, const std::string& port);

    const PgConnection& primary_;
    std::string slot_;
    Report report_;
    std::set<std::string> synchronized_standby_slots_;  // the primary's setting, read by check_primary()
};

}  // namespace outbox::replication
