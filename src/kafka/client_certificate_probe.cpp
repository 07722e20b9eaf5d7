#include "outbox/kafka/client_certificate_probe.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "outbox/kafka/broker_address.hpp"
#include "outbox/kafka/tls_probe.hpp"
#include "outbox/util/log.hpp"

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;

// A probe waits at most this long in all, and starts at most once per interval: during a plain
// outage every lost connection would otherwise ask again.
constexpr auto kProbeBudget = std::chrono::seconds(2);
constexpr auto kProbeInterval = std::chrono::seconds(30);

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

ClientCertificateProbe::ClientCertificateProbe(const config::KafkaSettings& settings, std::string bootstrap_servers,
                                               bool client_certificate)
    : settings_(settings),
      bootstrap_servers_(std::move(bootstrap_servers)),
      client_certificate_(client_certificate),
      cancel_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

ClientCertificateProbe::~ClientCertificateProbe() {
    if (!worker_.joinable()) return;
    const std::uint64_t one = 1;
    if (cancel_.valid()) (void)!::write(cancel_.get(), &one, sizeof one);
    worker_.join();
}

void ClientCertificateProbe::start(const std::string& reason) {
    const auto now = Clock::now();
    if (last_start_ && now - *last_start_ < kProbeInterval) return;
    bool announce = false;
    {
        const std::lock_guard lock(mutex_);
        if (running_) return;  // within its budget of ending
        running_ = true;
        announce = !outage_announced_;
        outage_announced_ = true;
    }
    if (worker_.joinable()) worker_.join();
    // Once per outage at info: a plain outage (brokers down) loses a connection every few seconds.
    const auto log_at = [announce](const std::string& line) { announce ? log::info(line) : log::debug(line); };
    log_at("kafka: TLS: a connection was lost; asking the bootstrap brokers whether they refuse the client certificate");
    try {
        worker_ = std::thread([this, reason, log_at] {
            Verdict verdict;
            try {
                verdict = run(reason);
                if (verdict.cause.empty()) log_at("kafka: TLS: no bootstrap broker refused the client certificate");
            } catch (const std::exception& e) {
                log::warn(std::string("kafka: TLS: the client-certificate probe failed: ") + e.what());
            }
            const std::lock_guard lock(mutex_);
            running_ = false;
            if (verdict.answered) outage_announced_ = false;
            if (!verdict.cause.empty()) verdict_ = std::move(verdict.cause);
        });
    } catch (const std::exception& e) {
        // No thread (std::system_error): called from librdkafka's error callback, which no
        // exception may cross, so the next lost connection asks again.
        {
            const std::lock_guard lock(mutex_);
            running_ = false;
            if (announce) outage_announced_ = false;
        }
        log::warn(std::string("kafka: TLS: cannot start the client-certificate probe: ") + e.what());
        return;
    }
    last_start_ = now;
}

std::string ClientCertificateProbe::take_verdict() {
    const std::lock_guard lock(mutex_);
    return std::exchange(verdict_, {});
}

void ClientCertificateProbe::wait() {
    if (worker_.joinable()) worker_.join();
}

ClientCertificateProbe::Verdict ClientCertificateProbe::run(const std::string& reason) const {
    Verdict verdict;
    const auto deadline = Clock::now() + kProbeBudget;
    for (const auto& broker : bootstrap_entries(bootstrap_servers_)) {
        if (Clock::now() >= deadline) break;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        const TlsProbeAnswer answer = probe_tls_listener(settings_, broker, left, cancel_.get());
        if (answer.outcome == TlsProbeAnswer::Outcome::no_answer) continue;
        verdict.answered = true;
        if (answer.outcome == TlsProbeAnswer::Outcome::accepted) return verdict;
        const std::string alert = " (TLS alert: " + answer.description + ")";
        if (refuses_certificate(answer.alert)) {
            verdict.cause = "kafka: TLS: broker " + broker + " refused the client certificate" + alert +
                            (client_certificate_ ? ": is it signed by a CA the broker trusts (its ssl.truststore)?"
                                                 : ": it requires one; set ssl.certificate.location and ssl.key.location");
            return verdict;
        }
        if (refuses_handshake(answer.alert)) {
            verdict.cause = "kafka: TLS: broker " + broker + " refused the TLS handshake" + alert +
                            "; librdkafka said: " + reason;
            return verdict;
        }
    }
    return verdict;
}

}  // namespace outbox::kafka
