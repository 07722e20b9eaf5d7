#include "outbox/observability/slot_monitor.hpp"

#include <poll.h>

#include <utility>

#include "outbox/replication/connection_settings.hpp"
#include "outbox/util/log.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::observability {
namespace {

std::int64_t as_gauge(Lsn lsn) { return static_cast<std::int64_t>(lsn); }

}  // namespace

std::string side_connection_conninfo(std::string_view conninfo) {
    return replication::side_conninfo(conninfo, "outbox-router-slot-monitor");
}

SlotMonitor::SlotMonitor(const std::string& conninfo, std::string slot_name, Metrics& metrics,
                         std::chrono::milliseconds interval)
    : conninfo_(side_connection_conninfo(conninfo)),
      slot_name_(std::move(slot_name)),
      metrics_(metrics),
      ticker_(interval, [this] { poll(); }) {}

SlotMonitor::~SlotMonitor() { stopping_ = true; }

void SlotMonitor::poll() {
    try {
        read_slot();
        metrics_.slot_monitor_up.set(1);
        if (std::exchange(failing_, false)) log::info("slot monitor: reading pg_replication_slots again");
    } catch (const std::exception& e) {
        connection_.reset();
        if (stopping_) return;
        metrics_.slot_monitor_up.set(0);
        if (!std::exchange(failing_, true))
            log::warn(std::string("slot monitor: ") + e.what() + "; retrying every interval");
    }
}

void SlotMonitor::read_slot() {
    // connect_timeout bounds connecting, but nothing bounds waiting for a query's answer from a
    // server that accepts and never replies: without this, shutdown would wait for it.
    const auto wait = [this](int socket, bool for_write) {
        pollfd ready{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
        while (!stopping_)
            if (::poll(&ready, 1, 100) != 0) return true;
        return false;
    };
    if (!connection_) connection_.emplace(conninfo_, replication::PgConnection::Mode::sql, wait);
    // One row whether or not the slot exists yet (the pipeline creates it on first start).
    const auto result = connection_->exec(
        "SELECT pg_current_wal_lsn(), s.restart_lsn, s.confirmed_flush_lsn, s.active "
        "FROM (VALUES (1)) AS one LEFT JOIN pg_replication_slots s ON s.slot_name = " +
            connection_->quote_literal(slot_name_),
        "slot monitor query");
    const auto lsn_at = [&](int column) -> Lsn {
        if (PQgetisnull(result.get(), 0, column)) return 0;
        return parse_lsn(PQgetvalue(result.get(), 0, column)).value_or(0);
    };
    const Lsn server = lsn_at(0);
    const Lsn restart = lsn_at(1);
    metrics_.server_wal_lsn.set(as_gauge(server));
    metrics_.slot_confirmed_flush_lsn.set(as_gauge(lsn_at(2)));
    // restart_lsn is NULL for a missing slot and for one whose WAL was removed (wal_status lost).
    metrics_.slot_retained_wal_bytes.set(restart != 0 && server > restart ? as_gauge(server - restart) : 0);
    metrics_.slot_active.set(!PQgetisnull(result.get(), 0, 3) && PQgetvalue(result.get(), 0, 3)[0] == 't' ? 1 : 0);
}

}  // namespace outbox::observability
