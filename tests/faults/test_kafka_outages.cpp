#define BOOST_TEST_MODULE kafka_outages
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <thread>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

void all_brokers(bool up) {
    for (int broker = 1; broker <= 3; ++broker)
        up ? rd_kafka_mock_broker_set_up(kafka_cluster().mock(), broker)
           : rd_kafka_mock_broker_set_down(kafka_cluster().mock(), broker);
}

// The pid of the walsender serving `slot` (0 when none).
std::string walsender_pid(Sql& sql, const std::string& slot) {
    return sql.scalar("SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
}

struct ShortSenderTimeout {
    // Shorter than the outages below: a client that stopped answering would be cut off.
    ShortSenderTimeout() { postgres().set("wal_sender_timeout", "5s"); }
};

}  // namespace

BOOST_GLOBAL_FIXTURE(ShortSenderTimeout);

BOOST_AUTO_TEST_CASE(all_brokers_down_for_30_seconds_mid_stream) {
    const auto db = create_outbox_database("outage");
    Sql sql(postgres().conninfo(db));
    const std::string topic = "outage.events";
    RouterProcess router(work_dir(), router_config(db, "", "max.inflight.messages: 2000\n",
                                                   "outbox:\n  route.topic.replacement: outage.events\n"));
    BOOST_REQUIRE(router.wait_streaming());
    for (int t = 0; t < 10; ++t) sql.exec(outbox_rows_sql(t * 100, 100, 13));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1000).size() == 1000u);
    const std::string pid_before = walsender_pid(sql, db);
    const auto before_outage = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_REQUIRE(wait_until([&] { return confirmed_flush_lsn(db, db) >= before_outage; }, 30s));

    all_brokers(false);
    const auto outage_start = std::chrono::steady_clock::now();
    // Keep writing during the outage: far more than the in-flight limit.
    for (int t = 10; t < 60; ++t) {
        sql.exec(outbox_rows_sql(t * 100, 100, 13));
        std::this_thread::sleep_for(100ms);
    }
    long max_rss = 0;
    bool slot_held = true;
    const auto first_undelivered_end = before_outage;
    while (std::chrono::steady_clock::now() - outage_start < 30s) {
        max_rss = std::max(max_rss, peak_rss_kib(router.pid()));
        // Nothing written during the outage can be confirmed: the slot stays at or before it.
        if (confirmed_flush_lsn(db, db) > first_undelivered_end + 200 * 1024) slot_held = false;
        std::this_thread::sleep_for(1s);
    }
    BOOST_TEST(slot_held);
    BOOST_TEST(router.running());
    BOOST_TEST(walsender_pid(sql, db) == pid_before);  // same connection: status updates kept it alive
    BOOST_TEST(!contains(router.output(), "reconnecting"));

    all_brokers(true);
    BOOST_TEST(sequences_in(topic, 6000).size() == 6000u);
    const auto end = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= end; }, 60s));
    BOOST_TEST_MESSAGE("30 s outage: router peak RSS " << max_rss / 1024 << " MiB, 5,000 rows held and then delivered");
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer's shadow memory and quarantine dwarf the router's own
    BOOST_TEST(max_rss < 128 * 1024);
#endif
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(in_flight_limit_stops_reading_wal_but_keeps_the_connection) {
    const auto db = create_outbox_database("backpressure");
    Sql sql(postgres().conninfo(db));
    const std::string topic = "backpressure.events";
    RouterProcess router(work_dir(), router_config(db, "", "max.inflight.messages: 100\n",
                                                   "outbox:\n  route.topic.replacement: backpressure.events\n"));
    BOOST_REQUIRE(router.wait_streaming());
    const std::string pid_before = walsender_pid(sql, db);

    all_brokers(false);
    // ~10 MB of events: much more than socket buffers hold, so a router that stopped reading
    // leaves the walsender unable to send it all (and within the mock broker's 5 MB retention
    // per partition, so all of it can be read back).
    const std::string padding(1000, 'x');
    for (int t = 0; t < 100; ++t)
        sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) SELECT md5(i::text)::uuid, 'Order', "
                 "'key-' || (i % 7), 'Created', jsonb_build_object('seq', i, 'pad', '" + padding +
                 "') FROM generate_series(" + std::to_string(t * 100) + ", " + std::to_string(t * 100 + 99) + ") i");
    const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    std::this_thread::sleep_for(12s);  // over twice wal_sender_timeout
    const auto sent = lsn_value(sql.scalar("SELECT sent_lsn FROM pg_stat_replication WHERE pid = " + pid_before));
    BOOST_TEST(sent < written);  // the walsender is held back by the unread socket
    BOOST_TEST(walsender_pid(sql, db) == pid_before);
    BOOST_TEST(router.running());

    all_brokers(true);
    BOOST_TEST(sequences_in(topic, 10000).size() == 10000u);
    BOOST_TEST(!contains(router.output(), "reconnecting"));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(fatal_producer_error_replaces_the_producer_and_replays) {
    const auto db = create_outbox_database("fatal");
    Sql sql(postgres().conninfo(db));
    const std::string topic = "fatal.events";
    RouterProcess router(work_dir(), router_config(db, "", "", "outbox:\n  route.topic.replacement: fatal.events\n"));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec(outbox_rows_sql(0, 100, 5));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 100).size() == 100u);

    // A sequence number the broker did not expect: idempotence is broken, which librdkafka
    // reports as a fatal error of the producer instance (rd_kafka_fatal_error).
    rd_kafka_mock_push_request_errors(kafka_cluster().mock(), 0 /* Produce */, 1,
                                      RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    for (int t = 1; t < 10; ++t) sql.exec("BEGIN; " + outbox_rows_sql(t * 100, 100, 5) + "; COMMIT;");
    BOOST_TEST(wait_until([&] { return contains(router.output(), "fatal producer error: OUT_OF_ORDER_SEQUENCE_NUMBER"); }, 60s));

    // A stale epoch fails the in-flight records without a fatal error: replayed the same way.
    rd_kafka_mock_push_request_errors(kafka_cluster().mock(), 0 /* Produce */, 1,
                                      RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH);
    for (int t = 10; t < 20; ++t) sql.exec("BEGIN; " + outbox_rows_sql(t * 100, 100, 5) + "; COMMIT;");
    BOOST_TEST(wait_until([&] { return contains(router.output(), "old epoch; replacing the producer"); }, 60s));

    BOOST_TEST(sequences_in(topic, 2000).size() == 2000u);
    BOOST_TEST(router.running());
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// topic.creation.*: the mock cluster never answers CreateTopics. Creating the topic must not stop
// the loop: status updates keep going out while the row waits for its topic (before, the loop sat
// in CreateTopics for 30 s and then in the wait for the topic's metadata, sending nothing).
BOOST_AUTO_TEST_CASE(an_unanswered_create_topics_does_not_stop_the_loop) {
    const auto db = create_outbox_database("createwait");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db, "",
                                                   "topic.creation.default.partitions: 1\n"
                                                   "topic.creation.default.replication.factor: 1\n",
                                                   "outbox:\n  route.topic.replacement: createwait.events\n"));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec(outbox_rows_sql(0, 1, 1));
    const std::string reply_time = "SELECT reply_time FROM pg_stat_replication WHERE pid = (SELECT active_pid FROM "
                                   "pg_replication_slots WHERE slot_name = '" + db + "')";
    std::this_thread::sleep_for(2s);  // the row is routed and its topic asked for
    const auto pid = walsender_pid(sql, db);
    const auto before = sql.scalar(reply_time);
    std::this_thread::sleep_for(3s);
    // Status updates went out meanwhile, on the same connection (wal_sender_timeout is 5 s here).
    const auto after = sql.scalar(reply_time);
    BOOST_TEST(!after.empty());
    BOOST_TEST(after != before);
    BOOST_TEST(walsender_pid(sql, db) == pid);
    BOOST_TEST(router.running());
    BOOST_TEST(router.stop(SIGTERM) == 0);
    BOOST_TEST(!contains(router.output(), "createwait.events\" (topic.creation group \"default\"): created"));
}
