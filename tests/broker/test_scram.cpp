#define BOOST_TEST_MODULE scram
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "test_ca.hpp"
#include "topic_admin.hpp"

// SASL/SCRAM-SHA-512 log-in, end to end, over SASL_PLAINTEXT and SASL_SSL. Debian 12's librdkafka
// (2.0.2) repeats the client nonce in SCRAM's final message, which Kafka 4.x refuses
// (broker/test_broker_failures.cpp checks the router says so); the last Kafka 3.x broker accepts
// it, so this program runs that one.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

struct Kafka3WithSasl {
    Kafka3WithSasl() {
        BrokerClusterOptions options;
        options.sasl = true;
        options.runtime_libs = kafka3_runtime_libs();
        const auto server = test_ca().server("kafka3-broker", {"localhost"});
        options.tls_listeners = {{"SASLTLS", true, false, server.certificate, server.key, ""}};
        configure_real_kafka(options);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(Kafka3WithSasl);

// sasl_router_config() on the broker's SASL_SSL listener, its certificate verified.
std::string sasl_ssl_router_config(const std::string& database, const std::string& topic,
                                   const std::string& password_variable) {
    std::string config = sasl_router_config(database, topic, password_variable, "SCRAM-SHA-512");
    const std::string plaintext = "  security.protocol: SASL_PLAINTEXT\n";
    config.replace(config.find(plaintext), plaintext.size(),
                   "  security.protocol: SASL_SSL\n"
                   "  ssl.ca.location: \"" + test_ca().certificate() + "\"\n"
                   "  ssl.endpoint.identification.algorithm: https\n");
    const auto sasl = real_kafka().sasl_bootstrap_servers();
    return config.replace(config.find(sasl), sasl.size(), real_kafka().tls_bootstrap_servers("SASLTLS"));
}

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

BOOST_AUTO_TEST_CASE(scram_over_sasl_ssl_delivers) {
    const auto db = create_outbox_database("scramtls");
    const std::string topic = "scramtls.events";
    create_topic(kafka_servers(), topic, 1, 1);
    ::setenv("OUTBOX_TEST_KAFKA_PASSWORD", kSaslPassword, 1);
    RouterProcess router(work_dir(), sasl_ssl_router_config(db, topic, "OUTBOX_TEST_KAFKA_PASSWORD"));
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 20, 4));
    const auto records = read_topic(kafka_servers(), topic, 20);
    const auto tally = tally_deliveries(records, 20);
    BOOST_TEST(records.size() == 20u);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(!contains(router.output(), kSaslPassword));
    BOOST_TEST(router.stop(SIGTERM) == 0);
    BOOST_TEST(confirmed_flush_lsn(db, db) > 0u);
}

BOOST_AUTO_TEST_CASE(a_wrong_scram_password_over_sasl_ssl_is_a_definite_error_that_keeps_the_secret) {
    const auto db = create_outbox_database("scramtlsbad");
    const std::string wrong = "wrong-scram-tls-secret-9d41";
    ::setenv("OUTBOX_TEST_WRONG_PASSWORD", wrong.c_str(), 1);
    RouterProcess router(work_dir(), sasl_ssl_router_config(db, "scramtlsbad.events", "OUTBOX_TEST_WRONG_PASSWORD"));
    BOOST_TEST(router.wait(120s) == 1);
    BOOST_TEST_MESSAGE("wrong SCRAM password over SASL_SSL: " << last_line(router.output()));
    BOOST_TEST(contains(last_line(router.output()), "kafka: authentication failed"));
    BOOST_TEST(contains(last_line(router.output()), "SCRAM-SHA-512"));
    BOOST_TEST(!contains(router.output(), wrong));

    std::string output;
    BOOST_TEST(run_router("--config " + router.config_path() + " --check", output) == 1);
    BOOST_TEST(contains(output, "authentication failed"));
    BOOST_TEST(!contains(output, wrong));
}
