#define BOOST_TEST_MODULE broker_cluster_failover
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <thread>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "topic_admin.hpp"

// Three real brokers (each also a KRaft controller), replication factor 3, min.insync.replicas 2,
// and the router's default acks=all.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

struct ThreeBrokers {
    ThreeBrokers() {
        BrokerClusterOptions options;
        options.nodes = 3;
        configure_real_kafka(options);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(ThreeBrokers);

// The walsender's view of the router: when it last heard a status update (NULL when no router
// is connected), so a test can see the connection kept alive while Kafka stands still.
std::string last_reply(Sql& sql, const std::string& slot) {
    return sql.scalar("SELECT r.reply_time FROM pg_stat_replication r JOIN pg_replication_slots s "
                      "ON s.active_pid = r.pid WHERE s.slot_name = '" + slot + "'");
}

}  // namespace

BOOST_AUTO_TEST_CASE(losing_the_leader_then_the_quorum_loses_nothing_and_bounds_memory) {
    const auto db = create_outbox_database("failover");
    const std::string topic = "failover.events";
    create_topic(kafka_servers(), topic, 3, 3);
    // Small in-flight limits, so the stall reaches them and the bound on memory is what is tested.
    RouterProcess router(work_dir(), router_config(db, "", "max.inflight.messages: 2000\n",
                                                   "outbox:\n  route.topic.replacement: " + topic + "\n"));
    BOOST_REQUIRE(router.wait_streaming());
    constexpr int kTransactions = 1600, kRows = 25;
    std::atomic<bool> writing = true;
    std::thread writer([&] {
        Sql sql(postgres().conninfo(db));
        for (int t = 0; t < kTransactions; ++t) {
            sql.exec("BEGIN; " + outbox_rows_sql(t * kRows, kRows, 17) + "; COMMIT;");
            std::this_thread::sleep_for(20ms);
        }
        writing = false;
    });
    BOOST_REQUIRE(wait_until([&] { return topic_record_count(kafka_servers(), topic) >= 2000; }, 60s));
    BOOST_REQUIRE(writing);

    // The leader of a busy partition dies: another replica takes over and the stream goes on.
    const int leader = partition_leader(kafka_servers(), topic, 0);
    BOOST_REQUIRE(leader >= 1);
    real_kafka().node(leader).kill_hard();
    BOOST_TEST_MESSAGE("killed node " << leader << ", the leader of partition 0");
    std::this_thread::sleep_for(5s);
    const auto confirmed_after_leader_loss = confirmed_flush_lsn(db, db);
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) > confirmed_after_leader_loss; }, 30s));

    // A second broker dies: below min.insync.replicas (and the controllers' quorum), nothing can
    // be acknowledged. The router must wait, keep its replication connection alive, and stop
    // reading at its in-flight limit while the writer goes on.
    const int second = leader % 3 + 1;
    real_kafka().node(second).kill_hard();
    BOOST_TEST_MESSAGE("killed node " << second);
    Sql sql(postgres().conninfo(db));
    std::this_thread::sleep_for(5s);
    const auto reply_before = last_reply(sql, db);
    const auto confirmed_during_outage = confirmed_flush_lsn(db, db);
    std::this_thread::sleep_for(10s);
    BOOST_TEST(!reply_before.empty());
    // Status updates kept coming (one every 200 ms; the wait allows for a loaded machine).
    std::string reply_after;
    BOOST_TEST(wait_until([&] { return (reply_after = last_reply(sql, db)) > reply_before; }, 20s),
               "reply_time " << reply_before << " then " << reply_after);
    BOOST_TEST(confirmed_flush_lsn(db, db) == confirmed_during_outage);
    BOOST_TEST(router.running());
    const long peak_during_outage = peak_rss_kib(router.pid());
    BOOST_TEST_MESSAGE("router peak RSS during the outage: " << peak_during_outage << " KiB");

    real_kafka().restart(second);
    BOOST_TEST_MESSAGE("restarted node " << second);
    writer.join();
    BOOST_TEST(!writing);
    const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= written; }, 180s));
    real_kafka().restart(leader);

    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, kTransactions * kRows), kTransactions * kRows);
    BOOST_TEST_MESSAGE("leader killed, then a second broker, then restarted: " << tally);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.unexpected == 0u);
    BOOST_TEST(tally.order_kept);
    BOOST_TEST(!contains(router.output(), "reconnecting"));
    const long peak = peak_rss_kib(router.pid());
    BOOST_TEST_MESSAGE("router peak RSS: " << peak << " KiB; " << tally.duplicates << " duplicates");
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer's shadow memory and quarantine dwarf the router's own
    BOOST_TEST(peak < 100 * 1024);  // the in-flight limit holds the backlog in PostgreSQL, not here
#endif
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
