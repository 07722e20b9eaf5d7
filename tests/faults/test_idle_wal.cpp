#define BOOST_TEST_MODULE idle_wal
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <csignal>
#include <thread>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// No outbox writes, sustained writes to another table and to another database: the slot
// must follow the server (keepalive walEnd is confirmed when nothing is pending), so the WAL
// it retains stays bounded however much WAL the server writes.
BOOST_AUTO_TEST_CASE(idle_outbox_on_a_busy_server_retains_bounded_wal) {
    const auto db = create_outbox_database("idle");
    const auto other_db = create_outbox_database("busy");
    RouterProcess router(work_dir(), router_config(db));
    BOOST_REQUIRE(router.wait_streaming());

    std::atomic<bool> stop{false};
    auto writer = [&](const std::string& database) {
        Sql sql(postgres().conninfo(database));
        // About 2 MB of WAL a second per writer.
        for (long n = 0; !stop; n += 1500) {
            sql.exec("INSERT INTO orders SELECT g, repeat('x', 200), g FROM generate_series(" + std::to_string(n + 1) +
                     ", " + std::to_string(n + 1500) + ") g");
            std::this_thread::sleep_for(200ms);
        }
    };
    // restart_lsn can move only to a running-transactions record, which the server writes every
    // 15 s and at each checkpoint: a checkpoint every 2 s lets a short run span many of them.
    auto checkpointer = [&] {
        Sql sql(postgres().conninfo("postgres"));
        while (!stop) {
            sql.exec("CHECKPOINT");
            for (int i = 0; i < 20 && !stop; ++i) std::this_thread::sleep_for(100ms);
        }
    };
    Sql sql(postgres().conninfo(db));
    const auto start_lsn = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()"));
    std::thread same_database(writer, db), other_database(writer, other_db), snapshots(checkpointer);

    std::uint64_t max_retained = 0;
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(1s);
        const auto retained = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()")) -
                              lsn_value(sql.scalar("SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = '" + db + "'"));
        max_retained = std::max(max_retained, retained);
    }
    stop = true;
    same_database.join();
    other_database.join();
    snapshots.join();
    const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()")) - start_lsn;
    BOOST_TEST_MESSAGE("over 30 s the server wrote " << written / (1024 * 1024) << " MiB of WAL; the idle slot retained at most "
                                                      << max_retained / (1024 * 1024) << " MiB");
    BOOST_TEST(written > 64u * 1024 * 1024);  // the server really was busy
    // With a running-transactions record every 2 s, the slot holds a few seconds of the server's
    // WAL however long the outbox stays idle: less than 12 of the 30 seconds' worth, whatever
    // this machine's write rate. A slot that did not follow would hold all of it.
    BOOST_TEST(max_retained < written * 12 / 30);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// Debezium's heartbeat: the action query runs at the interval on a connection of its own, and the
// transactional logical message it writes is decoded and confirmed like any transaction.
BOOST_AUTO_TEST_CASE(heartbeat_action_query_runs_and_its_transactions_are_confirmed) {
    const auto db = create_outbox_database("heartbeat");
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE heartbeat (beat timestamptz NOT NULL DEFAULT now())");
    RouterProcess router(work_dir(), router_config(db, "  heartbeat.interval.ms: 200\n"
                                                       "  heartbeat.action.query: \"INSERT INTO heartbeat DEFAULT VALUES; "
                                                       "SELECT pg_logical_emit_message(true, 'outbox-router-heartbeat', '')\"\n"));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_TEST(wait_until([&] { return std::stoi(sql.scalar("SELECT count(*) FROM heartbeat")) >= 5; }, 30s));
    const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= written; }, 30s));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
