#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "outbox/config/config.hpp"
#include "outbox/util/file_descriptor.hpp"

namespace outbox::kafka {

// Asks the bootstrap brokers' TLS listeners whether they refuse this client's certificate (see
// tls_probe.hpp), on a thread of its own: a probe may wait up to its budget on a broker that
// accepts connections and never answers, and the serving thread must keep streaming meanwhile.
// One probe at a time, at most one start per interval; the serving thread starts it and collects
// its verdict later. Every wait of a probe, the host-name lookups included, ends at its budget or
// at the destructor's cancel, so the destructor's join is short.
class ClientCertificateProbe {
public:
    ClientCertificateProbe(const config::KafkaSettings& settings, std::string bootstrap_servers,
                           bool client_certificate);
    ~ClientCertificateProbe();  // cancels a running probe and joins it
    ClientCertificateProbe(const ClientCertificateProbe&) = delete;
    ClientCertificateProbe& operator=(const ClientCertificateProbe&) = delete;

    // Starts a probe after librdkafka lost a TLS connection with `reason`, unless one runs or
    // one started less than the interval ago. A thread that cannot start is logged, not thrown (this
    // runs in librdkafka's error callback), and the next lost connection asks again.
    void start(const std::string& reason);

    // The definite cause a finished probe found, once; empty while none is known.
    std::string take_verdict();

    // Waits for a running probe to finish (at most its budget).
    void wait();

private:
    struct Verdict {
        std::string cause;      // the definite cause, or empty
        bool answered = false;  // a broker answered the TLS handshake, refusing or not
    };
    // The first broker that answers decides.
    Verdict run(const std::string& reason) const;

    const config::KafkaSettings settings_;
    const std::string bootstrap_servers_;
    const bool client_certificate_;
    FileDescriptor cancel_;  // an eventfd: readable once the destructor asks the probe to stop
    std::optional<std::chrono::steady_clock::time_point> last_start_;
    std::thread worker_;
    std::mutex mutex_;
    bool running_ = false;  // guarded by mutex_
    // A probe was logged at info and no broker has answered since; guarded by mutex_.
    bool outage_announced_ = false;
    std::string verdict_;   // guarded by mutex_
};

}  // namespace outbox::kafka
