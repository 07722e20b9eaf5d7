#define BOOST_TEST_MODULE connection_failures
#include <boost/test/unit_test.hpp>

#include <openssl/x509_vfy.h>

#include "outbox/kafka/broker_address.hpp"
#include "outbox/kafka/connection_failures.hpp"

// Which broker-connection failures stop the router, decided from librdkafka's codes and OpenSSL's
// verification codes. (A refused client certificate is asked of a real broker in
// broker/test_kafka_tls.cpp.)

using outbox::kafka::ConnectionFailures;

namespace {

outbox::config::KafkaSettings settings(std::vector<std::pair<std::string, std::string>> properties) {
    outbox::config::KafkaSettings kafka;
    for (auto& [name, value] : properties) kafka.properties.push_back({name, value, {"router.yaml", 1}});
    return kafka;
}

// Nothing listens on port 1 of the loopback: a probe gets no answer at once.
const auto kTls = settings({{"bootstrap.servers", "127.0.0.1:1"}, {"security.protocol", "SSL"}});
// The only bootstrap server is the broker whose certificate check() fails.
const auto kTlsBroker1 = settings({{"bootstrap.servers", "broker-1:9093"}, {"security.protocol", "SSL"}});

bool check(ConnectionFailures& failures, int x509_error) {
    char errstr[256] = "";
    return failures.certificate_checked("ssl://broker-1:9093/1", x509_error, 0, errstr, sizeof errstr);
}

}  // namespace

BOOST_AUTO_TEST_CASE(refused_credentials_are_definite_with_or_without_tls) {
    ConnectionFailures failures(settings({{"security.protocol", "SASL_PLAINTEXT"}}), "127.0.0.1:1");
    failures.error_reported(RD_KAFKA_RESP_ERR__AUTHENTICATION, "SASL authentication error: Invalid username or password");
    BOOST_TEST(failures.definite() == "kafka: authentication failed: SASL authentication error: Invalid username or password");
}

BOOST_AUTO_TEST_CASE(the_verdict_of_openssl_is_kept) {
    ConnectionFailures failures(kTls, "");
    BOOST_TEST(failures.verifies_certificates());
    BOOST_TEST(check(failures, X509_V_OK));
    BOOST_TEST(!check(failures, X509_V_ERR_CERT_HAS_EXPIRED));
    BOOST_TEST(failures.definite().empty());  // until librdkafka reports the handshake failed
}

BOOST_AUTO_TEST_CASE(a_failed_certificate_is_definite_once_the_handshake_fails_and_names_why) {
    const std::pair<int, const char*> cases[] = {
        {X509_V_ERR_CERT_HAS_EXPIRED, "it has expired"},
        {X509_V_ERR_HOSTNAME_MISMATCH, "it is for another host name"},
        {X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, "signed by an unknown CA"},
        {X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, "signed by an unknown CA"},
        {X509_V_ERR_CERT_NOT_YET_VALID, "it is not valid yet"},
    };
    for (const auto& [code, words] : cases) {
        ConnectionFailures failures(kTlsBroker1, "");
        check(failures, code);
        failures.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
        BOOST_TEST(failures.definite().starts_with("kafka: TLS: the certificate of broker ssl://broker-1:9093/1"));
        BOOST_TEST(failures.definite().find(words) != std::string::npos, failures.definite());
    }
}

BOOST_AUTO_TEST_CASE(lost_connections_without_a_refusal_are_not_definite) {
    ConnectionFailures failures(kTls, "");
    failures.error_reported(RD_KAFKA_RESP_ERR__TRANSPORT, "Connect to ipv4#127.0.0.1:1 failed: Connection refused");
    failures.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: SSL transport error: Broken pipe");
    failures.error_reported(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "1/1 brokers are down");
    BOOST_TEST(failures.definite().empty());
}

BOOST_AUTO_TEST_CASE(without_tls_only_credentials_count) {
    ConnectionFailures failures(settings({{"bootstrap.servers", "127.0.0.1:1"}}), "");
    BOOST_TEST(!failures.verifies_certificates());
    failures.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed");
    failures.error_reported(RD_KAFKA_RESP_ERR__TRANSPORT, "Disconnected");
    BOOST_TEST(failures.definite().empty());
}

BOOST_AUTO_TEST_CASE(unchecked_certificates_are_not_watched) {
    ConnectionFailures failures(
        settings({{"security.protocol", "ssl"}, {"enable.ssl.certificate.verification", "false"}}), "127.0.0.1:1");
    BOOST_TEST(!failures.verifies_certificates());
}

// One broker of several fails verification: while another serves, or a bootstrap server has not
// failed, only a failed delivery makes it definite (the pipeline's part). The bootstrap entry of
// a listener and the broker it turns out to be are one broker.
BOOST_AUTO_TEST_CASE(a_failed_certificate_while_other_brokers_may_serve_is_kept_apart) {
    char errstr[256] = "";
    ConnectionFailures alone(kTlsBroker1, "");
    BOOST_TEST(alone.certificate_checked("ssl://broker-2:9093/2", X509_V_OK, 1, errstr, sizeof errstr));
    BOOST_TEST(alone.certificate_checked("ssl://broker-1:9093/bootstrap", X509_V_OK, 0, errstr, sizeof errstr));
    BOOST_TEST(!check(alone, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY));
    alone.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
    // broker-2 was verified only at depth 1 (its CA), and broker-1's bootstrap entry is broker-1.
    BOOST_TEST(alone.definite().starts_with("kafka: TLS: the certificate of broker ssl://broker-1:9093/1"));
    BOOST_TEST(alone.partial().empty());

    ConnectionFailures others_serve(kTlsBroker1, "");
    BOOST_TEST(others_serve.certificate_checked("ssl://broker-2:9093/2", X509_V_OK, 0, errstr, sizeof errstr));
    BOOST_TEST(!check(others_serve, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY));
    others_serve.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
    BOOST_TEST(others_serve.definite().empty());
    BOOST_TEST(others_serve.partial().starts_with("kafka: TLS: the certificate of broker ssl://broker-1:9093/1"),
               others_serve.partial());

    // Three bootstrap servers: definite once each has failed, not before.
    ConnectionFailures three(settings({{"bootstrap.servers", "broker-1:9093, broker-2:9093,broker-3:9093"},
                                       {"security.protocol", "SSL"}}), "");
    for (const char* broker : {"ssl://broker-1:9093/bootstrap", "ssl://broker-2:9093/bootstrap", "ssl://broker-3:9093/3"}) {
        BOOST_TEST(three.definite().empty());
        BOOST_TEST(!three.certificate_checked(broker, X509_V_ERR_CERT_HAS_EXPIRED, 0, errstr, sizeof errstr));
        three.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
    }
    BOOST_TEST(three.definite().starts_with("kafka: TLS: the certificate of broker ssl://broker-3:9093/3"), three.definite());
}

// A broker whose certificate failed, then verified (renewed, or another broker at its address):
// a later delivery timeout must not be taken for that old failure.
BOOST_AUTO_TEST_CASE(a_broker_verified_after_its_certificate_failed_is_forgotten) {
    char errstr[256] = "";
    ConnectionFailures failures(settings({{"bootstrap.servers", "broker-1:9093,broker-2:9093"},
                                          {"security.protocol", "SSL"}}), "");
    BOOST_TEST(failures.certificate_checked("ssl://broker-2:9093/2", X509_V_OK, 0, errstr, sizeof errstr));
    BOOST_TEST(!check(failures, X509_V_ERR_CERT_HAS_EXPIRED));
    failures.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
    BOOST_TEST(failures.partial().starts_with("kafka: TLS: the certificate of broker ssl://broker-1:9093/1"));

    BOOST_TEST(failures.certificate_checked("ssl://broker-1:9093/1", X509_V_OK, 0, errstr, sizeof errstr));
    BOOST_TEST(failures.partial().empty(), failures.partial());
    BOOST_TEST(failures.definite().empty());

    // broker-2 fails later and it alone is held against the router; broker-1 serves now.
    BOOST_TEST(!failures.certificate_checked("ssl://broker-2:9093/2", X509_V_ERR_CERT_HAS_EXPIRED, 0, errstr, sizeof errstr));
    failures.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
    BOOST_TEST(failures.partial().starts_with("kafka: TLS: the certificate of broker ssl://broker-2:9093/2"), failures.partial());
    BOOST_TEST(failures.definite().empty());
}

// librdkafka spells a broker its own way ("ssl://host:port/id", IPv6 without brackets, the host as
// advertised): it is the bootstrap entry the user wrote all the same.
BOOST_AUTO_TEST_CASE(bootstrap_entries_match_the_brokers_librdkafka_names_whatever_the_spelling) {
    const std::pair<const char*, const char*> cases[] = {
        {"localhost:9093", "ssl://localhost:9093/1"},
        {"LOCALHOST:9093", "ssl://localhost:9093/bootstrap"},
        {"Broker-1.Example:9093", "ssl://broker-1.example:9093/1"},
        {"[::1]:9093", "sasl_ssl://[::1]:9093/bootstrap"},
        {"[::1]:9093", "ssl://::1:9093/1"},
    };
    for (const auto& [bootstrap, broker] : cases) {
        char errstr[256] = "";
        ConnectionFailures failures(settings({{"bootstrap.servers", bootstrap}, {"security.protocol", "SSL"}}), "");
        BOOST_TEST(!failures.certificate_checked(broker, X509_V_ERR_CERT_HAS_EXPIRED, 0, errstr, sizeof errstr));
        failures.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
        // The only bootstrap broker failed and no other serves: definite, not a partial refusal.
        BOOST_TEST(failures.definite().starts_with(std::string("kafka: TLS: the certificate of broker ") + broker),
                   bootstrap << " / " << broker << ": " << failures.definite());
        BOOST_TEST(failures.partial().empty(), bootstrap << " / " << broker);
    }
    // The same listener verified under one spelling is not "another broker that serves".
    char errstr[256] = "";
    ConnectionFailures one(settings({{"bootstrap.servers", "[::1]:9093"}, {"security.protocol", "SSL"}}), "");
    BOOST_TEST(one.certificate_checked("ssl://[0:0::1]:9093/bootstrap", X509_V_OK, 0, errstr, sizeof errstr));
    BOOST_TEST(!one.certificate_checked("ssl://::1:9093/1", X509_V_ERR_CERT_HAS_EXPIRED, 0, errstr, sizeof errstr));
    one.error_reported(RD_KAFKA_RESP_ERR__SSL, "SSL handshake failed: certificate verify failed");
    BOOST_TEST(!one.definite().empty());
}

// Bootstrap entries and librdkafka's broker names, from text.
BOOST_AUTO_TEST_CASE(entries_parse_with_or_without_protocol_and_brackets) {
    const auto plain = outbox::kafka::parse_broker_address("broker-1:9093");
    BOOST_REQUIRE(plain);
    BOOST_TEST(plain->host == "broker-1");
    BOOST_TEST(plain->port == "9093");
    const auto v6 = outbox::kafka::parse_broker_address("ssl://[::1]:9093");
    BOOST_REQUIRE(v6);
    BOOST_TEST(v6->host == "::1");
    BOOST_TEST(v6->port == "9093");
    BOOST_TEST(!outbox::kafka::parse_broker_address("broker-1"));
    BOOST_TEST(!outbox::kafka::parse_broker_address("broker-1:"));
    BOOST_TEST(!outbox::kafka::parse_broker_address(":9093"));
    BOOST_TEST((outbox::kafka::bootstrap_entries(" a:1, ,b:2 ,") == std::vector<std::string>{"a:1", "b:2"}));
}

// librdkafka names a broker "ssl://host:port/1" (or ".../bootstrap") with the host as given or as
// advertised, an IPv6 address without brackets; bootstrap.servers has it as the user wrote it.
BOOST_AUTO_TEST_CASE(one_listener_has_one_normalized_address_whatever_its_spelling) {
    for (const char* spelling : {"localhost:9093", "ssl://localhost:9093/1", "SSL://LocalHost:9093/bootstrap",
                                 "LOCALHOST:9093", "sasl_ssl://localhost:9093/2"})
        BOOST_TEST(outbox::kafka::normalized_broker_address(spelling) == "localhost:9093", spelling);
    for (const char* spelling : {"[::1]:9093", "sasl_ssl://[::1]:9093/bootstrap", "ssl://::1:9093/1", "[0:0::0:1]:9093",
                                 "::1:9093"})
        BOOST_TEST(outbox::kafka::normalized_broker_address(spelling) == "[::1]:9093", spelling);
    BOOST_TEST(outbox::kafka::normalized_broker_address("SSL://[FE80::A]:9093/3") == "[fe80::a]:9093");
    BOOST_TEST(outbox::kafka::normalized_broker_address("ssl://10.0.0.1:9093/7") == "10.0.0.1:9093");
    BOOST_TEST(outbox::kafka::normalized_broker_address("localhost:9094") != outbox::kafka::normalized_broker_address("localhost:9093"));
    BOOST_TEST(outbox::kafka::normalized_broker_address("localhost").empty());
    BOOST_TEST(outbox::kafka::normalized_broker_address("ssl://:9093/1").empty());
}
