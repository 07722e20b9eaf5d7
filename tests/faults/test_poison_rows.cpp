#define BOOST_TEST_MODULE poison_rows
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <set>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

// Routes aggregatetype X to topic "<prefix>.X" and lets aggregatetype be NULL.
struct PoisonSetup {
    explicit PoisonSetup(const std::string& name, const std::string& top_extra) : db(create_outbox_database(name)) {
        Sql(postgres().conninfo(db)).exec("ALTER TABLE outbox ALTER COLUMN aggregatetype DROP NOT NULL");
        router = std::make_unique<RouterProcess>(
            work_dir(), router_config(db, "", top_extra, "outbox:\n  route.topic.replacement: \"" + name + ".${routedByValue}\"\n"));
        BOOST_REQUIRE(router->wait_streaming());
    }
    void insert(const std::string& values) {
        Sql(postgres().conninfo(db)).exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES " + values);
    }
    bool slot_passes_everything() {
        const auto end = lsn_value(Sql(postgres().conninfo(db)).scalar("SELECT pg_current_wal_insert_lsn()"));
        return wait_until([&] { return confirmed_flush_lsn(db, db) >= end; }, 60s);
    }
    std::string db;
    std::unique_ptr<RouterProcess> router;
};

// Kafka refuses every produce to `refused` (authorization): its only partition lives on broker
// 3, which answers the next Produce with the error; the other topics live elsewhere.
void refuse_topic(const std::string& refused, const std::vector<std::string>& others) {
    auto* mock = kafka_cluster().mock();
    rd_kafka_mock_topic_create(mock, refused.c_str(), 1, 1);
    rd_kafka_mock_partition_set_leader(mock, refused.c_str(), 0, 3);
    int broker = 1;
    for (const auto& topic : others) {
        rd_kafka_mock_topic_create(mock, topic.c_str(), 1, 1);
        rd_kafka_mock_partition_set_leader(mock, topic.c_str(), 0, broker++ % 2 + 1);
    }
    rd_kafka_mock_broker_push_request_error_rtts(mock, 3, 0 /* Produce */, 1, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, 0);
}

const char* kRows =
    "('00000000-0000-0000-0000-000000000001', 'Good', 'k1', 't', '{\"seq\": 1}'),"
    "('00000000-0000-0000-0000-000000000002', NULL, 'k2', 't', '{\"seq\": 2}'),"
    "('00000000-0000-0000-0000-000000000003', 'Good', 'k3', 't', '{\"seq\": 3}')";

}  // namespace

BOOST_AUTO_TEST_CASE(unroutable_row_goes_to_the_dead_letter_topic_with_its_origin) {
    PoisonSetup setup("dlq", "errors.tolerance: all\nerrors.deadletterqueue.topic.name: dlq.dead\n");
    setup.insert(kRows);
    const auto good = read_topic(kafka_servers(), "dlq.Good", 2);
    BOOST_TEST(good.size() == 2u);
    const auto dead = read_topic(kafka_servers(), "dlq.dead", 1);
    BOOST_REQUIRE(dead.size() == 1u);
    const auto& letter = dead[0];
    BOOST_TEST(letter.key.value() == "k2");
    BOOST_TEST(letter.value.value() == "{\"seq\": 2}");
    BOOST_TEST(letter.header("id").value() == "00000000-0000-0000-0000-000000000002");
    BOOST_TEST(letter.header("__outbox.errors.source").value() == "public.outbox");
    BOOST_TEST(letter.header("__connect.errors.stage").value() == "route");
    BOOST_TEST(contains(letter.header("__connect.errors.exception.message").value(), "NULL"));
    const auto xid = letter.header("__outbox.errors.xid").value();
    BOOST_TEST(std::stoul(xid) > 0u);
    BOOST_TEST(lsn_value(letter.header("__outbox.errors.commit.lsn").value()) > 0u);
    BOOST_TEST(setup.slot_passes_everything());
    BOOST_TEST(setup.router->stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(without_a_dead_letter_topic_the_row_is_skipped_and_logged) {
    PoisonSetup setup("skip", "errors.tolerance: all\n");
    setup.insert(kRows);
    BOOST_TEST(read_topic(kafka_servers(), "skip.Good", 2).size() == 2u);
    BOOST_TEST(wait_until([&] { return contains(setup.router->output(), "skipping an event that cannot be delivered"); }, 30s));
    BOOST_TEST(setup.slot_passes_everything());
    BOOST_TEST(setup.router->stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(record_over_message_max_bytes_is_skipped_under_errors_tolerance_all) {
    // The indented line lands in the kafka section, which router_config() writes last.
    PoisonSetup setup("size", "  message.max.bytes: 2000\nerrors.tolerance: all\n");
    const std::string big(5000, 'x');
    setup.insert("(gen_random_uuid(), 'Good', 'a', 't', '{\"seq\": 1}'), (gen_random_uuid(), 'Good', 'b', 't', '{\"seq\": 2, \"pad\": \"" +
                 big + "\"}'), (gen_random_uuid(), 'Good', 'c', 't', '{\"seq\": 3}')");
    BOOST_TEST(read_topic(kafka_servers(), "size.Good", 2).size() == 2u);
    BOOST_TEST(wait_until([&] { return contains(setup.router->output(), "Kafka refused the record"); }, 30s));
    BOOST_TEST(setup.slot_passes_everything());
    BOOST_TEST(setup.router->stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(topic_kafka_refuses_goes_to_the_dead_letter_topic) {
    refuse_topic("refuse.Denied", {"refuse.Good", "refuse.dead"});
    PoisonSetup setup("refuse", "errors.tolerance: all\nerrors.deadletterqueue.topic.name: refuse.dead\n");
    setup.insert("(gen_random_uuid(), 'Good', 'a', 't', '{\"seq\": 1}'), (gen_random_uuid(), 'Denied', 'b', 't', '{\"seq\": 2}'),"
                 "(gen_random_uuid(), 'Good', 'c', 't', '{\"seq\": 3}')");
    BOOST_TEST(read_topic(kafka_servers(), "refuse.Good", 2).size() == 2u);
    const auto dead = read_topic(kafka_servers(), "refuse.dead", 1, 90s);
    BOOST_REQUIRE(dead.size() == 1u);
    BOOST_TEST(dead[0].header("__connect.errors.topic").value() == "refuse.Denied");
    BOOST_TEST(dead[0].header("__connect.errors.stage").value() == "produce");
    BOOST_TEST(dead[0].key.value() == "b");
    BOOST_TEST(dead[0].header("id").has_value());
    BOOST_TEST(setup.slot_passes_everything());
    BOOST_TEST(setup.router->stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(by_default_a_refused_record_stops_the_router_without_confirming_it) {
    refuse_topic("strict.Denied", {});
    PoisonSetup setup("strict", "");
    setup.insert("(gen_random_uuid(), 'Denied', 'b', 't', '{\"seq\": 2}')");
    const auto after_commit = lsn_value(Sql(postgres().conninfo(setup.db)).scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(setup.router->wait(120s) == 1);
    BOOST_TEST(contains(last_line(setup.router->output()), "strict.Denied"));
    BOOST_TEST(confirmed_flush_lsn(setup.db, setup.db) < after_commit);
}
