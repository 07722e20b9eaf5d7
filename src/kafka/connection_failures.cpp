#include "outbox/kafka/connection_failures.hpp"

#include "outbox/kafka/broker_address.hpp"
#include "outbox/util/log.hpp"

#include <openssl/x509_vfy.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace outbox::kafka {
namespace {

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
    if (tls_) probe_ = std::make_unique<ClientCertificateProbe>(settings_, bootstrap_servers_, client_certificate_);
}

const std::string& ConnectionFailures::definite() const {
    if (definite_.empty() && probe_) definite_ = probe_->take_verdict();
    return definite_;
}

const std::string& ConnectionFailures::partial() const {
    if (!partial_.empty()) {
        const std::lock_guard lock(certificate_mutex_);
        if (failed_addresses_.count(partial_address_) == 0) {
            partial_.clear();
            partial_address_.clear();
        }
    }
    return partial_;
}

const std::string& ConnectionFailures::definite_after_probe() {
    if (probe_) probe_->wait();
    return definite();
}

bool ConnectionFailures::certificate_checked(const char* broker, int x509_error, int depth, char* errstr,
                                             std::size_t errstr_size) {
    const std::string address = normalized_broker_address(broker);
    if (x509_error == X509_V_OK) {
        if (depth == 0) {
            const std::lock_guard lock(certificate_mutex_);
            verified_addresses_.insert(address);
            failed_addresses_.erase(address);
        }
        return true;
    }
    const std::string verdict = X509_verify_cert_error_string(x509_error);
    std::snprintf(errstr, errstr_size, "%s", verdict.c_str());
    const std::lock_guard lock(certificate_mutex_);
    verified_addresses_.erase(address);
    failed_addresses_[address] = std::string("the certificate of broker ") + broker + " failed verification: " +
                                 certificate_problem(x509_error) + " (OpenSSL: " + verdict + ")";
    last_failed_address_ = address;
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
        if (!failed_addresses_.empty()) {
            auto failed = failed_addresses_.find(last_failed_address_);
            if (failed == failed_addresses_.end()) failed = failed_addresses_.begin();
            const std::string failure = "kafka: TLS: " + failed->second;
            const bool others_serve = std::any_of(verified_addresses_.begin(), verified_addresses_.end(),
                                                  [&](const std::string& address) { return address != failed->first; });
            const auto bootstrap = bootstrap_entries(bootstrap_servers_);
            const bool every_bootstrap_failed = std::all_of(bootstrap.begin(), bootstrap.end(), [&](const std::string& entry) {
                return failed_addresses_.count(normalized_broker_address(entry)) > 0;
            });
            if (!others_serve && every_bootstrap_failed) {
                definite_ = failure;
            } else if (partial_ != failure) {
                partial_ = failure;
                partial_address_ = failed->first;
                log::warn(partial_ + "; the router goes on through the other brokers: records for the partitions "
                                     "this broker leads wait, and stop the router when they time out "
                                     "(message.timeout.ms)");
            }
            return;
        }
    }
    if (error == RD_KAFKA_RESP_ERR__SSL || error == RD_KAFKA_RESP_ERR__TRANSPORT) probe_->start(reason);
}

}  // namespace outbox::kafka
