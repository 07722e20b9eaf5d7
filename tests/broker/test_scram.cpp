#define BOOST_TEST_MODULE scram
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "topic_admin.hpp"

// SASL/SCRAM-SHA-512 log-in, end to end. Debian 12's librdkafka (2.0.2) repeats the client nonce
// in SCRAM's final message, which Kafka 4.x refuses (broker/test_broker_failures.cpp checks the
// router says so); the last Kafka 3.x broker accepts it, so this program runs that one.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

struct Kafka3WithSasl {
    Kafka3WithSasl() {
        BrokerClusterOptions options;
        options.sasl = true;
        options.runtime_libs = kafka3_runtime_libs();
        configure_real_kafka(options);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(Kafka3WithSasl);

}  // namespace

BOOST_AUTO_TEST_CASE(scram_credentials_from_the_environment_deliver) {
    const auto db = create_outbox_database("scram");
    const std::string topic = "scram.events";
    create_topic(kafka_servers(), topic, 1, 1);
    ::setenv("OUTBOX_TEST_KAFKA_PASSWORD", kSaslPassword, 1);
    RouterProcess router(work_dir(), sasl_router_config(db, topic, "OUTBOX_TEST_KAFKA_PASSWORD", "SCRAM-SHA-512"));
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 20, 4));
    const auto records = read_topic(kafka_servers(), topic, 20);
    const auto tally = tally_deliveries(records, 20);
    BOOST_TEST(records.size() == 20u);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(!contains(router.output(), kSaslPassword));
    BOOST_TEST(router.stop(SIGTERM) == 0);
    // Confirmed only what the SCRAM-authenticated producer had acknowledged: everything.
    BOOST_TEST(confirmed_flush_lsn(db, db) > 0u);
}

BOOST_AUTO_TEST_CASE(a_wrong_scram_password_is_a_definite_error_that_keeps_the_secret) {
    const auto db = create_outbox_database("scrambad");
    const std::string wrong = "wrong-scram-secret-51a0";
    ::setenv("OUTBOX_TEST_WRONG_PASSWORD", wrong.c_str(), 1);
    RouterProcess router(work_dir(),
                         sasl_router_config(db, "scrambad.events", "OUTBOX_TEST_WRONG_PASSWORD", "SCRAM-SHA-512"));
    BOOST_TEST(router.wait(120s) == 1);
    BOOST_TEST_MESSAGE("wrong SCRAM password: " << last_line(router.output()));
    BOOST_TEST(contains(last_line(router.output()), "kafka: authentication failed"));
    BOOST_TEST(contains(last_line(router.output()), "SCRAM-SHA-512"));
    BOOST_TEST(!contains(router.output(), wrong));

    std::string output;
    BOOST_TEST(run_router("--config " + router.config_path() + " --check", output) == 1);
    BOOST_TEST(contains(output, "authentication failed"));
    BOOST_TEST(!contains(output, wrong));
}
