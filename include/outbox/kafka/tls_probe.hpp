#pragma once

#include <chrono>
#include <string>

#include "outbox/config/config.hpp"

namespace outbox::kafka {

// What one broker's TLS listener answered a connection made with the client certificate of
// `kafka.ssl.*`, asked directly with OpenSSL. librdkafka reports a broker that refuses the client
// certificate only as a lost connection: under TLS 1.3 the broker's alert arrives after the
// client's side of the handshake has finished, so no SSL error code carries it.
struct TlsProbeAnswer {
    enum class Outcome {
        accepted,   // the broker answered a Kafka request over the session
        refused,    // the broker sent a TLS alert; `alert` says which
        no_answer,  // unreachable, timed out, or failed on this side: nothing learned
    };
    Outcome outcome = Outcome::no_answer;
    int alert = 0;            // the TLS alert number (RFC 8446, 6.2)
    std::string description;  // OpenSSL's words for it
};

// Connects to `host_port` (host:port, [v6]:port, optionally with a protocol:// prefix), completes
// a TLS handshake without checking the broker's certificate (librdkafka checks that), sends an
// ApiVersions request and reads the answer's first bytes, all within `budget`, the host-name
// lookup included. Gives up with no_answer as soon as `cancel_fd` (when >= 0) becomes readable.
// Blocks: see client_certificate_probe.hpp.
TlsProbeAnswer probe_tls_listener(const config::KafkaSettings& settings, const std::string& host_port,
                                  std::chrono::milliseconds budget, int cancel_fd = -1);

}  // namespace outbox::kafka
