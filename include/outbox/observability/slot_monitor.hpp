#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <atomic>
#include <string_view>

#include "outbox/observability/metrics.hpp"
#include "outbox/util/ticker.hpp"
#include "outbox/replication/pg_connection.hpp"

namespace outbox::observability {

// Reads the server's WAL position and the slot's row of pg_replication_slots every `interval`
// over a plain SQL connection of its own, so the figures stay current while the replication
// connection is down or busy, and publishes them as the slot_* and server_wal_lsn gauges.
// Failures set slot_monitor_up to 0, are logged once, and are retried at the next interval.
class SlotMonitor {
public:
    SlotMonitor(const std::string& conninfo, std::string slot_name, Metrics& metrics,
                std::chrono::milliseconds interval = std::chrono::seconds(5));
    SlotMonitor(const SlotMonitor&) = delete;
    SlotMonitor& operator=(const SlotMonitor&) = delete;
    ~SlotMonitor();  // gives up a wait on the server within 100 ms

private:
    void poll();
    void read_slot();

    const std::string conninfo_;
    const std::string slot_name_;
    Metrics& metrics_;
    std::optional<replication::PgConnection> connection_;
    bool failing_ = false;
    std::atomic<bool> stopping_{false};
    Ticker ticker_;  // last: its thread uses everything above
};

// `conninfo` (key/value or URI) with bounded connect and network waits added, unless it sets
// them itself, so an unreachable server delays shutdown by seconds, not by TCP's minutes; and
// an application_name that tells this session apart in pg_stat_activity.
std::string side_connection_conninfo(std::string_view conninfo);

}  // namespace outbox::observability
