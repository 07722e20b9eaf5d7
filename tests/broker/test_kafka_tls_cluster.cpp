#define BOOST_TEST_MODULE kafka_tls_cluster
#include <boost/test/unit_test.hpp>

#include <csignal>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "test_ca.hpp"
#include "topic_admin.hpp"

// Three brokers with TLS listeners, the third presenting a certificate from a CA the router does
// not trust. Kafka clients work through the brokers they can reach: the router delivers what the
// first two lead and goes on, and stops, naming the third broker's certificate, only when records
// for a partition the third leads cannot be delivered (message.timeout.ms).

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

struct ThreeBrokersOneUntrusted {
    ThreeBrokersOneUntrusted() {
        static const TestCa stranger("a CA nobody trusts");
        const auto trusted = test_ca().server("kafka-broker", {"localhost"});
        const auto untrusted = stranger.server("kafka-untrusted", {"localhost"});
        BrokerClusterOptions options;
        options.nodes = 3;
        options.properties["min.insync.replicas"] = "1";  // the test topics have one replica each
        options.tls_listeners = {{"TLS", false, false, trusted.certificate, trusted.key, ""}};
        options.node_tls_listeners[3] = {{"TLS", false, false, untrusted.certificate, untrusted.key, ""}};
        configure_real_kafka(options);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(ThreeBrokersOneUntrusted);

// Every broker in bootstrap.servers and connected to (not one picked at random), so that the
// untrusted one is met whatever librdkafka picks first.
std::string cluster_config(const std::string& database, const std::string& topic) {
    std::string config = router_config(database, "",
                                       "  security.protocol: SSL\n"
                                       "  ssl.ca.location: \"" + test_ca().certificate() + "\"\n"
                                       "  ssl.endpoint.identification.algorithm: https\n"
                                       "  enable.sparse.connections: false\n"
                                       "  message.timeout.ms: 5000\n"
                                       "shutdown.timeout.ms: 5000\n",
                                       "outbox:\n  route.topic.replacement: " + topic + "\n");
    const auto plain = real_kafka().bootstrap_servers();
    return config.replace(config.find(plain), plain.size(), real_kafka().tls_bootstrap_servers("TLS"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_broker_refusing_tls_holds_back_only_the_partitions_it_leads) {
    create_topic_led_by(kafka_servers(), "healthy.events", {1, 2});
    create_topic_led_by(kafka_servers(), "blocked.events", {3});

    // Partitions led by the verified brokers: everything arrives, the router keeps running.
    const auto healthy_db = create_outbox_database("tlscluster");
    RouterProcess router(work_dir(), cluster_config(healthy_db, "healthy.events"));
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(healthy_db)).exec(outbox_rows_sql(0, 20, 4));
    const auto tally = tally_deliveries(read_topic(kafka_servers(), "healthy.events", 20), 20);
    BOOST_TEST(tally.records == 20u);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(wait_until([&] { return contains(router.output(), "the router goes on through the other brokers"); }, 30s),
               router.output());
    BOOST_TEST(router.running());
    BOOST_TEST(router.stop(SIGTERM) == 0, router.output());
    BOOST_TEST(confirmed_flush_lsn(healthy_db, healthy_db) > 0u);

    // A partition the untrusted broker leads: a definite error naming its certificate, once the
    // records for it time out; no replay loop.
    const auto blocked_db = create_outbox_database("tlsclusterblocked");
    RouterProcess blocked(work_dir(), cluster_config(blocked_db, "blocked.events"));
    BOOST_REQUIRE(blocked.wait_streaming());
    const auto before = confirmed_flush_lsn(blocked_db, blocked_db);
    Sql(postgres().conninfo(blocked_db)).exec(outbox_rows_sql(0, 5, 1));
    BOOST_TEST(blocked.wait(120s) == 1, blocked.output());
    const auto last = last_line(blocked.output());
    BOOST_TEST_MESSAGE("exit cause: " << last);
    BOOST_TEST(contains(last, "kafka: TLS: the certificate of broker"), last);
    BOOST_TEST(contains(last, "signed by an unknown CA"), last);
    BOOST_TEST(contains(last, "Message timed out"), last);
    BOOST_TEST(!contains(blocked.output(), "replacing the producer"), blocked.output());
    BOOST_TEST(confirmed_flush_lsn(blocked_db, blocked_db) == before);
}
