#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/client_certificate_probe.hpp"

namespace outbox::kafka {

// Whether the brokers refuse this client for a reason retrying cannot change: SASL credentials
// they refuse, a broker certificate that fails verification (unknown CA, another host's name,
// expired), a client certificate they refuse. Fed by librdkafka's callbacks on the producer; the
// first such cause is kept, in words naming it and never a secret.
class ConnectionFailures {
public:
    // `bootstrap_servers` overrides kafka.bootstrap.servers when non-empty, as for the producer.
    ConnectionFailures(const config::KafkaSettings& settings, std::string bootstrap_servers);

    // Whether librdkafka connects with TLS and checks the brokers' certificates, so that
    // certificate_checked() must be installed as its ssl.certificate.verify_cb.
    bool verifies_certificates() const { return tls_ && verifies_; }

    // OpenSSL's verdict on one certificate of `broker`'s chain (`depth` 0: the broker's own), from a
    // broker thread: kept as it is (the return value), a failure remembered for the SSL error that
    // follows it, a verified broker remembered as one that serves. The latest verdict on an
    // address counts: a broker verified after it failed (its certificate renewed, or another
    // broker at its address) is no longer held against the router. Brokers are told apart by
    // address in one form (normalized_broker_address), whatever librdkafka calls them.
    bool certificate_checked(const char* broker, int x509_error, int depth, char* errstr, std::size_t errstr_size);

    // librdkafka's error callback, on the serving thread. A connection lost over TLS may be a
    // refused client certificate: the bootstrap brokers are then asked directly, off this thread
    // (client_certificate_probe.hpp), and definite() shows the answer once it is in.
    void error_reported(rd_kafka_resp_err_t error, const char* reason);

    // A broker whose certificate fails verification is definite at once only when no other broker
    // was verified and every bootstrap server failed too. Otherwise Kafka clients work through the
    // brokers they can reach, and only the partitions that broker leads wait: the failure is kept
    // here (and logged once), and the pipeline makes it definite when a delivery fails
    // (message.timeout.ms). Empty again once that broker is verified. On the serving thread.
    const std::string& partial() const;

    // Empty while no definite cause is known. On the serving thread.
    const std::string& definite() const;

    // bootstrap.servers as the producer uses it.
    const std::string& bootstrap_servers() const { return bootstrap_servers_; }

    // definite() once a running probe has answered (at most its budget): for --check, which asks once.
    const std::string& definite_after_probe();

private:
    config::KafkaSettings settings_;
    std::string bootstrap_servers_;
    bool tls_ = false;
    bool verifies_ = true;
    bool scram_ = false;
    bool client_certificate_ = false;
    mutable std::string definite_;  // a probe's verdict is taken in when definite() is asked
    std::unique_ptr<ClientCertificateProbe> probe_;  // over TLS only
    mutable std::mutex certificate_mutex_;
    // By normalized address, each in one of them: the latest verdict. Guarded by certificate_mutex_.
    std::set<std::string> verified_addresses_;
    std::map<std::string, std::string> failed_addresses_;  // the failure in words
    std::string last_failed_address_;                      // guarded by certificate_mutex_
    mutable std::string partial_;           // on the serving thread
    mutable std::string partial_address_;   // the broker partial_ names
};

}  // namespace outbox::kafka
