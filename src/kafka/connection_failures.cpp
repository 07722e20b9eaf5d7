#include "outbox/kafka/connection_failures.hpp"

#include <openssl/x509_vfy.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "outbox/kafka/tls_probe.hpp"

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;

// A probe waits at most this long in all, and runs at most once per interval: it blocks the
// serving thread, and during a plain outage every lost connection would otherwise ask again.
constexpr auto kProbeBudget = std::chrono::seconds(2);
constexpr auto kProbeInterval = std::chrono::seconds(30);

// librdkafka before 2.6.1 repeats the client nonce in SCRAM's final message; Kafka 4.0 and later
// check the nonce strictly, as RFC 5802 asks, and refuse every such login (librdkafka#4895).
constexpr int kFirstVersionWithKafka4Scram = 0x020601ff;

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// What an X509 verification error means for the operator, by its code.
std::string certificate_problem(int x509_error) {
    switch (x509_error) {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return "it has expired";
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return "it is not valid yet";
        case X509_V_ERR_CERT_REVOKED:
            return "it has been revoked";
        case X509_V_ERR_HOSTNAME_MISMATCH:
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
            return "it is for another host name than the one connected to (ssl.endpoint.identification.algorithm: "
                   "https checks the names in bootstrap.servers and in the brokers' advertised listeners)";
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return "it is signed by an unknown CA, not one of ssl.ca.location (or the system's CAs when that is unset)";
        default:
            return "it is not valid";
    }
}

// TLS alerts (RFC 8446, 6.2) by which a broker refuses the client's certificate.
bool refuses_certificate(int alert) {
    switch (alert) {
        case 42:   // bad_certificate
        case 43:   // unsupported_certificate
        case 44:   // certificate_revoked
        case 45:   // certificate_expired
        case 46:   // certificate_unknown
        case 48:   // unknown_ca
        case 49:   // access_denied
        case 116:  // certificate_required
            return true;
        default:
            return false;
    }
}

// TLS alerts by which a broker refuses the handshake the client's settings offer.
bool refuses_handshake(int alert) {
    return alert == 40 /* handshake_failure */ || alert == 70 /* protocol_version */ ||
           alert == 71 /* insufficient_security */;
}

}  // namespace

ConnectionFailures::ConnectionFailures(const config::KafkaSettings& settings, std::string bootstrap_servers)
    : settings_(settings), bootstrap_servers_(std::move(bootstrap_servers)) {
    for (const auto& property : settings_.properties) {
        if (property.name == "security.protocol") tls_ = lower(property.value).ends_with("ssl");
        if (property.name == "enable.ssl.certificate.verification") verifies_ = lower(property.value) != "false";
        if (property.name == "sasl.mechanisms" || property.name == "sasl.mechanism")
            scram_ = property.value.starts_with("SCRAM");
        if (property.name == "ssl.certificate.location" || property.name == "ssl.certificate.pem" ||
            property.name == "ssl.keystore.location")
            client_certificate_ = true;
        if (property.name == "bootstrap.servers" && bootstrap_servers_.empty()) bootstrap_servers_ = property.value;
    }
}

bool ConnectionFailures::certificate_checked(const char* broker, int x509_error, char* errstr,
                                             std::size_t errstr_size) {
    if (x509_error == X509_V_OK) return true;
    const std::string verdict = X509_verify_cert_error_string(x509_error);
    std::snprintf(errstr, errstr_size, "%s", verdict.c_str());
    const std::lock_guard lock(certificate_mutex_);
    certificate_failure_ = std::string("the certificate of broker ") + broker + " failed verification: " +
                           certificate_problem(x509_error) + " (OpenSSL: " + verdict + ")";
    return false;
}

void ConnectionFailures::error_reported(rd_kafka_resp_err_t error, const char* reason) {
    if (!definite_.empty()) return;
    if (error == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
        definite_ = std::string("kafka: authentication failed: ") + reason;
        if (scram_ && rd_kafka_version() < kFirstVersionWithKafka4Scram)
            definite_ += std::string(" (if the credentials are right: librdkafka ") + rd_kafka_version_str() +
                         " cannot log in with SCRAM to Kafka 4.0 or later, fixed in librdkafka 2.6.1; "
                         "use a librdkafka of 2.6.1 or later, or SASL/PLAIN over TLS)";
        return;
    }
    if (!tls_) return;
    if (error == RD_KAFKA_RESP_ERR__SSL) {
        // librdkafka's SSL code: the handshake failed. When the broker's certificate failed
        // verification the callback has said why; nothing but new certificates or settings helps.
        const std::lock_guard lock(certificate_mutex_);
        if (!certificate_failure_.empty()) {
            definite_ = "kafka: TLS: " + certificate_failure_;
            return;
        }
    }
    if (error == RD_KAFKA_RESP_ERR__SSL || error == RD_KAFKA_RESP_ERR__TRANSPORT) probe_client_certificate(reason);
}

void ConnectionFailures::probe_client_certificate(const char* reason) {
    const auto now = Clock::now();
    if (last_probe_ && now - *last_probe_ < kProbeInterval) return;
    last_probe_ = now;
    const auto deadline = now + kProbeBudget;
    std::size_t start = 0;
    while (start <= bootstrap_servers_.size() && Clock::now() < deadline) {
        const auto end = std::min(bootstrap_servers_.find(',', start), bootstrap_servers_.size());
        std::string broker = bootstrap_servers_.substr(start, end - start);
        start = end + 1;
        broker.erase(0, broker.find_first_not_of(' '));
        broker.erase(broker.find_last_not_of(' ') + 1);
        if (broker.empty()) continue;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        const TlsProbeAnswer answer = probe_tls_listener(settings_, broker, left);
        if (answer.outcome == TlsProbeAnswer::Outcome::accepted) return;
        if (answer.outcome != TlsProbeAnswer::Outcome::refused) continue;
        const std::string alert = " (TLS alert: " + answer.description + ")";
        if (refuses_certificate(answer.alert)) {
            definite_ = "kafka: TLS: broker " + broker + " refused the client certificate" + alert +
                        (client_certificate_ ? ": is it signed by a CA the broker trusts (its ssl.truststore)?"
                                             : ": it requires one; set ssl.certificate.location and ssl.key.location");
            return;
        }
        if (refuses_handshake(answer.alert)) {
            definite_ = "kafka: TLS: broker " + broker + " refused the TLS handshake" + alert + "; librdkafka said: " + reason;
            return;
        }
    }
}

}  // namespace outbox::kafka
