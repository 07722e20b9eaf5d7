#define BOOST_TEST_MODULE slot_monitor
#include <boost/test/unit_test.hpp>

#include "harness.hpp"
#include "outbox/observability/slot_monitor.hpp"

using namespace outbox::test;
using namespace outbox::observability;
using namespace std::chrono_literals;

// The slot monitor on its own, against a real server: no pipeline involved.

BOOST_AUTO_TEST_CASE(reports_the_slot_as_pg_replication_slots_shows_it) {
    const auto db = create_outbox_database("monitor");
    Sql sql(postgres().conninfo(db));
    Metrics metrics;
    SlotMonitor monitor(postgres().conninfo(db), db, metrics, 100ms);

    // No slot yet: the server's position, nothing retained.
    BOOST_REQUIRE(wait_until([&] { return metrics.slot_monitor_up.value() == 1; }, 10s));
    BOOST_TEST(metrics.server_wal_lsn.value() > 0);
    BOOST_TEST(metrics.slot_active.value() == 0);
    BOOST_TEST(metrics.slot_retained_wal_bytes.value() == 0);
    BOOST_TEST(metrics.slot_confirmed_flush_lsn.value() == 0);

    sql.exec("SELECT pg_create_logical_replication_slot('" + db + "', 'pgoutput')");
    const auto created = sql.rows("SELECT restart_lsn, confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + db + "'");
    const auto restart = static_cast<std::int64_t>(lsn_value(created[0][0]));
    const auto confirmed = static_cast<std::int64_t>(lsn_value(created[0][1]));
    // WAL written after the slot is retained by it.
    sql.exec("INSERT INTO orders SELECT g, 'c', g FROM generate_series(1, 2000) g");
    const auto written = static_cast<std::int64_t>(lsn_value(sql.scalar("SELECT pg_current_wal_lsn()")));

    BOOST_REQUIRE(wait_until([&] { return metrics.server_wal_lsn.value() >= written; }, 10s));
    BOOST_TEST(metrics.slot_confirmed_flush_lsn.value() == confirmed);
    // Two gauges of one poll; the next poll may land between the reads, so retry.
    BOOST_TEST(wait_until([&] { return metrics.slot_retained_wal_bytes.value() == metrics.server_wal_lsn.value() - restart; }, 10s));
    BOOST_TEST(metrics.slot_retained_wal_bytes.value() > 2000 * 40);  // at least the rows' WAL
    BOOST_TEST(metrics.slot_active.value() == 0);  // nobody streams from it
    // With nothing confirmed by a router yet, the lag counts from the slot's own position.
    BOOST_TEST(metrics.lag_bytes() >= written - confirmed);

    sql.exec("SELECT pg_drop_replication_slot('" + db + "')");
    BOOST_TEST(wait_until([&] { return metrics.slot_retained_wal_bytes.value() == 0; }, 10s));
}

BOOST_AUTO_TEST_CASE(an_unreachable_server_is_reported_and_does_not_block_shutdown) {
    const int closed_port = free_loopback_port();
    Metrics metrics;
    metrics.slot_monitor_up.set(1);
    const auto started = std::chrono::steady_clock::now();
    {
        SlotMonitor monitor("host=127.0.0.1 port=" + std::to_string(closed_port) + " dbname=x user=x", "s", metrics, 100ms);
        BOOST_TEST(wait_until([&] { return metrics.slot_monitor_up.value() == 0; }, 10s));
    }
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    BOOST_TEST(elapsed.count() < 10000);
}

BOOST_AUTO_TEST_CASE(reconnects_when_its_session_is_terminated) {
    const auto db = create_outbox_database("monitor_kill");
    Sql sql(postgres().conninfo(db));
    const std::string session_pid = "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = "
                                    "'outbox-router-slot-monitor' AND datname = '" + db + "'";
    Metrics metrics;
    SlotMonitor monitor(postgres().conninfo(db), db, metrics, 100ms);
    BOOST_REQUIRE(wait_until([&] { return sql.scalar(session_pid) != "0"; }, 10s));
    const std::string first = sql.scalar(session_pid);
    sql.exec("SELECT pg_terminate_backend(" + first + ")");
    BOOST_TEST(wait_until([&] {
        const std::string now = sql.scalar(session_pid);
        return now != "0" && now != first;
    }, 10s));
    BOOST_TEST(wait_until([&] { return metrics.slot_monitor_up.value() == 1; }, 10s));
}
