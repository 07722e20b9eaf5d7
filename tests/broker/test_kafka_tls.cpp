#define BOOST_TEST_MODULE kafka_tls
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "http_get.hpp"
#include "tcp_proxy.hpp"
#include "test_ca.hpp"
#include "topic_admin.hpp"

// Kafka over TLS on the real broker, end to end through the router: server verification,
// hostname verification, mutual TLS and SASL_SSL with PLAIN deliver; an unknown CA, another
// host's certificate, an expired one, a refused client certificate and a wrong password each
// stop the router with a cause naming it, from a run and from --check, and no secret shows.
// One broker with a TLS listener per certificate it presents.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

TestCa& ca() { return test_ca(); }

TestCa& other_ca() {
    static TestCa stranger("a CA nobody trusts");
    return stranger;
}

struct BrokerWithTlsListeners {
    BrokerWithTlsListeners() {
        const auto server = ca().server("kafka-broker", {"localhost"});
        const auto wrong_host = ca().server("kafka-wrong-host", {"elsewhere.invalid"});
        const auto expired = ca().expired_server("kafka-expired", {"localhost"});
        BrokerClusterOptions options;
        options.tls_listeners = {
            {"TLS", false, false, server.certificate, server.key, ""},
            {"MTLS", false, true, server.certificate, server.key, ca().certificate()},
            {"SASLTLS", true, false, server.certificate, server.key, ""},
            {"WRONGHOST", false, false, wrong_host.certificate, wrong_host.key, ""},
            {"EXPIRED", false, false, expired.certificate, expired.key, ""},
        };
        configure_real_kafka(options);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(BrokerWithTlsListeners);

// A router config on the TLS listener `listener`, events routed to `topic`, with `kafka_lines`
// (indented for kafka:) added.
std::string tls_config(const std::string& database, const std::string& topic, const std::string& listener,
                       const std::string& kafka_lines, const std::string& top_extra = "") {
    std::string config = router_config(database, "", kafka_lines + "shutdown.timeout.ms: 5000\n" + top_extra,
                                       "outbox:\n  route.topic.replacement: " + topic + "\n");
    const auto plain = real_kafka().bootstrap_servers();
    return config.replace(config.find(plain), plain.size(), real_kafka().tls_bootstrap_servers(listener));
}

std::string verified(TestCa& authority) {
    return "  security.protocol: SSL\n"
           "  ssl.ca.location: \"" + authority.certificate() + "\"\n"
           "  ssl.endpoint.identification.algorithm: https\n";
}

std::string with_client_certificate() {
    const auto client = ca().client("kafka-client", "outbox");
    return "  ssl.certificate.location: \"" + client.certificate + "\"\n"
           "  ssl.key.location: \"" + client.key + "\"\n";
}

std::string sasl_ssl_plain(const std::string& password_variable) {
    return "  security.protocol: SASL_SSL\n"
           "  ssl.ca.location: \"" + ca().certificate() + "\"\n"
           "  ssl.endpoint.identification.algorithm: https\n"
           "  sasl.mechanisms: PLAIN\n"
           "  sasl.username: " + std::string(kSaslUser) + "\n"
           "  sasl.password: \"${env:" + password_variable + "}\"\n";
}

// Writes 20 events and checks each arrives once, in order per key, and the slot moved.
void delivers_everything(RouterProcess& router, const std::string& db, const std::string& topic) {
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 20, 4));
    const auto records = read_topic(kafka_servers(), topic, 20);
    const auto tally = tally_deliveries(records, 20);
    BOOST_TEST(tally.records == 20u);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(tally.order_kept);
    BOOST_TEST(router.stop(SIGTERM) == 0);
    BOOST_TEST(confirmed_flush_lsn(db, db) > 0u);
}

// The router stops by itself with exit 1 and a last line naming the cause, without replaying,
// and `--check` on the same config fails naming it too.
void refused_with_cause(const std::string& config, const std::vector<std::string>& cause_words,
                        const std::string& secret = "") {
    RouterProcess router(work_dir(), config);
    const int exit_code = router.wait(120s);
    const std::string last = last_line(router.output());
    BOOST_TEST_MESSAGE("run: " << last);
    BOOST_TEST(exit_code == 1);
    for (const auto& word : cause_words) BOOST_TEST(contains(last, word), "\"" << word << "\" in: " << last);
    BOOST_TEST(!contains(router.output(), "replacing the producer"));
    BOOST_TEST(!contains(router.output(), "PRIVATE KEY"));
    if (!secret.empty()) BOOST_TEST(!contains(router.output(), secret));

    std::string output;
    BOOST_TEST(run_router("--config " + router.config_path() + " --check", output) == 1);
    std::string verdict;
    for (std::size_t at = 0; (at = output.find("FAIL  kafka", at)) != std::string::npos; ++at)
        verdict = output.substr(at, output.find('\n', at) - at);
    BOOST_TEST_MESSAGE("--check: " << verdict);
    for (const auto& word : cause_words) BOOST_TEST(contains(verdict, word), "\"" << word << "\" in: " << verdict);
    if (!secret.empty()) BOOST_TEST(!contains(output, secret));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_verified_broker_certificate_delivers) {
    const auto db = create_outbox_database("tlsok");
    const std::string topic = "tlsok.events";
    create_topic(kafka_servers(), topic, 1, 1);
    RouterProcess router(work_dir(), tls_config(db, topic, "TLS", verified(ca())));
    delivers_everything(router, db, topic);
}

BOOST_AUTO_TEST_CASE(mutual_tls_with_a_client_certificate_delivers) {
    const auto db = create_outbox_database("mtlsok");
    const std::string topic = "mtlsok.events";
    create_topic(kafka_servers(), topic, 1, 1);
    RouterProcess router(work_dir(), tls_config(db, topic, "MTLS", verified(ca()) + with_client_certificate()));
    delivers_everything(router, db, topic);
}

BOOST_AUTO_TEST_CASE(sasl_ssl_with_plain_delivers_and_keeps_the_password) {
    const auto db = create_outbox_database("saslssl");
    const std::string topic = "saslssl.events";
    create_topic(kafka_servers(), topic, 1, 1);
    ::setenv("OUTBOX_TEST_KAFKA_PASSWORD", kSaslPassword, 1);
    const int port = free_loopback_port();
    RouterProcess router(work_dir(), tls_config(db, topic, "SASLTLS", sasl_ssl_plain("OUTBOX_TEST_KAFKA_PASSWORD"),
                                                "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n"));
    BOOST_REQUIRE(router.wait_streaming());
    for (const char* path : {"/metrics", "/readyz", "/healthz"}) {
        const auto reply = http_get(static_cast<std::uint16_t>(port), path);
        BOOST_TEST(reply.status != 0, path);
        BOOST_TEST(!contains(reply.headers + reply.body, kSaslPassword), path);
    }
    delivers_everything(router, db, topic);
    BOOST_TEST(!contains(router.output(), kSaslPassword));
}

BOOST_AUTO_TEST_CASE(a_broker_certificate_from_an_unknown_ca_is_a_definite_error) {
    const auto db = create_outbox_database("tlsunknownca");
    refused_with_cause(tls_config(db, "tlsunknownca.events", "TLS", verified(other_ca())), {"TLS", "unknown CA"});
}

BOOST_AUTO_TEST_CASE(a_broker_certificate_for_another_host_is_a_definite_error) {
    const auto db = create_outbox_database("tlswronghost");
    refused_with_cause(tls_config(db, "tlswronghost.events", "WRONGHOST", verified(ca())),
                       {"TLS", "another host name"});
}

BOOST_AUTO_TEST_CASE(an_expired_broker_certificate_is_a_definite_error) {
    const auto db = create_outbox_database("tlsexpired");
    refused_with_cause(tls_config(db, "tlsexpired.events", "EXPIRED", verified(ca())), {"TLS", "expired"});
}

BOOST_AUTO_TEST_CASE(a_missing_client_certificate_is_a_definite_error) {
    const auto db = create_outbox_database("mtlsnone");
    refused_with_cause(tls_config(db, "mtlsnone.events", "MTLS", verified(ca())),
                       {"TLS", "refused the client certificate", "ssl.certificate.location"});
}

BOOST_AUTO_TEST_CASE(a_client_certificate_the_broker_does_not_trust_is_a_definite_error) {
    const auto db = create_outbox_database("mtlsstranger");
    const auto stranger = other_ca().client("kafka-stranger", "outbox");
    refused_with_cause(tls_config(db, "mtlsstranger.events", "MTLS",
                                  verified(ca()) + "  ssl.certificate.location: \"" + stranger.certificate +
                                      "\"\n  ssl.key.location: \"" + stranger.key + "\"\n"),
                       {"TLS", "refused the client certificate"});
}

BOOST_AUTO_TEST_CASE(a_wrong_password_over_sasl_ssl_is_a_definite_error_that_keeps_the_secret) {
    const auto db = create_outbox_database("saslsslbad");
    const std::string wrong = "wrong-plain-secret-7c2e";
    ::setenv("OUTBOX_TEST_WRONG_PASSWORD", wrong.c_str(), 1);
    refused_with_cause(tls_config(db, "saslsslbad.events", "SASLTLS", sasl_ssl_plain("OUTBOX_TEST_WRONG_PASSWORD")),
                       {"authentication failed"}, wrong);
}

BOOST_AUTO_TEST_CASE(exactly_once_with_an_unknown_ca_is_a_definite_error) {
    const auto db = create_outbox_database("tlseos");
    refused_with_cause(tls_config(db, "tlseos.events", "TLS", verified(other_ca()), "delivery.guarantee: exactly-once\n"),
                       {"TLS", "unknown CA"});
}

// The client-certificate probe (src/kafka/client_certificate_probe.cpp) waits on a bootstrap broker
// that accepts connections and never answers the TLS handshake (a stalled proxy in front of the
// listener) for its whole budget, while the router streams through the broker that answers:
// status updates (every 200 ms here) reach PostgreSQL between the probe's start and its end.
BOOST_AUTO_TEST_CASE(the_loop_keeps_serving_while_a_probe_waits_on_a_silent_broker) {
    const auto db = create_outbox_database("tlssilent");
    const std::string topic = "tlssilent.events";
    create_topic(kafka_servers(), topic, 1, 1);
    const auto listener = real_kafka().tls_bootstrap_servers("TLS");
    TcpProxy silent(std::stoi(listener.substr(listener.rfind(':') + 1)));
    silent.stall();
    std::string config = router_config(
        db, "",
        // Every bootstrap broker connected to (not one picked at random), the silent one given up on soon.
        verified(ca()) + "  enable.sparse.connections: false\n  socket.connection.setup.timeout.ms: 1000\n",
        "outbox:\n  route.topic.replacement: " + topic + "\n");
    const auto plain = real_kafka().bootstrap_servers();
    config.replace(config.find(plain), plain.size(), "localhost:" + std::to_string(silent.port()) + "," + listener);
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());

    const std::string started = "asking the bootstrap brokers whether they refuse the client certificate";
    const std::string ended = "no bootstrap broker refused the client certificate";
    BOOST_REQUIRE(wait_until([&] { return contains(router.output(), started); }, 60s));
    Sql sql(postgres().conninfo(db));
    const std::string reply_time = "SELECT reply_time FROM pg_stat_replication WHERE pid = (SELECT active_pid FROM "
                                   "pg_replication_slots WHERE slot_name = '" + db + "')";
    std::vector<std::string> replies;
    BOOST_REQUIRE(wait_until([&] {
        replies.push_back(sql.scalar(reply_time));
        return contains(router.output(), ended);
    }, 30s));
    // The log's timestamps (UTC, milliseconds) around the first probe.
    const auto output = router.output();
    const auto stamp_of = [&](const std::string& text) {
        const auto at = output.rfind('\n', output.find(text));
        return output.substr(at == std::string::npos ? 0 : at + 1, 24);
    };
    std::string array = "ARRAY[";
    for (const auto& reply : replies) array += "'" + reply + "'::timestamptz,";
    array.back() = ']';
    const auto during = sql.scalar("SELECT count(DISTINCT r) FROM unnest(" + array + ") AS r WHERE r > '" + stamp_of(started) +
                                   "'::timestamptz + interval '1 ms' AND r < '" + stamp_of(ended) + "'::timestamptz");
    BOOST_TEST_MESSAGE("probe from " << stamp_of(started) << " to " << stamp_of(ended) << "; " << replies.size()
                                     << " samples of reply_time, status updates during the probe: " << during);
    BOOST_TEST(std::stoi(during) > 0);

    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 5, 1));
    BOOST_TEST(read_topic(kafka_servers(), topic, 5).size() == 5u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
    BOOST_TEST(!contains(router.output(), "kafka: TLS: broker"));
}
