#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/librdkafka_connector.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pipeline/stream_core.hpp"
#include "outbox/replication/heartbeat.hpp"
#include "outbox/replication/replication_stream.hpp"
#include "outbox/replication/silence_policy.hpp"
#include "outbox/replication/status_keeper.hpp"

namespace outbox::pipeline {

// One slot's flow, wired to the real world: libpq connections and the replication socket,
// librdkafka (through LibrdkafkaConnector) and the machine's clocks around a StreamCore, which
// makes every decision. This file is the connection lifecycle (connect with backoff, set up the
// source, start the stream) and the single poll() loop: it waits on the replication socket,
// librdkafka's delivery-report pipe and the shutdown signal, so delivery reports are served while
// the socket is busy and status updates go out on time whatever Kafka is doing.
class Pipeline {
public:
    // `bootstrap_servers` overrides kafka.bootstrap.servers (embedded cluster) when non-empty.
    Pipeline(const config::Config& config, const std::string& bootstrap_servers, observability::Metrics& metrics);

    // Streams until ShutdownSignal is requested (returns normally after a clean stop) or a
    // definite error (throws DefiniteError). Connection losses and fatal producer errors are
    // recovered: reconnect with backoff, replay from the slot.
    void run();

private:
    using Clock = std::chrono::steady_clock;
    class ConnectionSlots;

    void connect();
    void drop_new_slot();
    void stream();
    void wait_before_reconnecting(std::chrono::milliseconds delay);
    void check_server_silence();

    const config::Config& config_;
    observability::Metrics& metrics_;
    replication::SilencePolicy silence_;
    std::optional<Clock::time_point> connecting_until_;
    kafka::LibrdkafkaConnector kafka_;
    StreamCore core_;
    std::optional<observability::Health::ProbeRegistration> kafka_probe_;
    std::unique_ptr<replication::ReplicationStream> stream_;
    // Exactly-once: keeps the walsender informed while Kafka transactions start.
    std::optional<replication::StatusKeeper> keeper_;
    std::unique_ptr<replication::Heartbeat> heartbeat_;
};

}  // namespace outbox::pipeline
