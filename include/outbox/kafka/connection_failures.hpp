#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "outbox/config/config.hpp"

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

    // OpenSSL's verdict on one certificate of `broker`'s chain, from a broker thread: kept as it
    // is (the return value), and a failure remembered for the SSL error that follows it.
    bool certificate_checked(const char* broker, int x509_error, char* errstr, std::size_t errstr_size);

    // librdkafka's error callback, on the serving thread. A connection lost over TLS may be a
    // refused client certificate: the first bootstrap broker is then asked directly (bounded,
    // at most twice a minute; see tls_probe.hpp).
    void error_reported(rd_kafka_resp_err_t error, const char* reason);

    // Empty while no definite cause is known.
    const std::string& definite() const { return definite_; }

private:
    void probe_client_certificate(const char* reason);

    config::KafkaSettings settings_;
    std::string bootstrap_servers_;
    bool tls_ = false;
    bool verifies_ = true;
    bool scram_ = false;
    bool client_certificate_ = false;
    std::string definite_;
    std::optional<std::chrono::steady_clock::time_point> last_probe_;
    std::mutex certificate_mutex_;
    std::string certificate_failure_;  // guarded by certificate_mutex_
};

}  // namespace outbox::kafka
