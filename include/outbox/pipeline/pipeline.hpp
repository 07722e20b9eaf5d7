#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "outbox/ack/ack_tracker.hpp"
#include "outbox/config/config.hpp"
#include "outbox/kafka/producer.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pgoutput/decoder.hpp"
#include "outbox/pipeline/caught_up_flush.hpp"
#include "outbox/pipeline/change_handler.hpp"
#include "outbox/pipeline/deliveries.hpp"
#include "outbox/pipeline/kafka_transactions.hpp"
#include "outbox/pipeline/outbox_sources.hpp"
#include "outbox/replication/heartbeat.hpp"
#include "outbox/replication/replication_stream.hpp"
#include "outbox/replication/silence_policy.hpp"
#include "outbox/replication/source_setup.hpp"
#include "outbox/router/outbox_router.hpp"

namespace outbox::pipeline {

// One slot's flow: replication stream → pgoutput decoder → change handler (router) →
// deliveries (Kafka producer) → acknowledgement tracker → status updates back to PostgreSQL: the
// connection lifecycle, the stream loop, draining, and confirm_to_postgres(), where the LSN is
// confirmed. Single-threaded: one poll() loop waits on the replication socket, librdkafka's
// delivery-report queue and the shutdown signal, so delivery reports are served while the socket
// is busy and status updates go out on time whatever Kafka is doing.
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

    void connect();
    void check_resume_position(Lsn position, const std::string& what) const;
    void stream();
    void recover_from_producer_failure(const std::string& reason);
    void wait_before_reconnecting(std::chrono::milliseconds delay);
    void serve_kafka(int timeout_ms);
    void act_on_deliveries();
    bool saturated() const;
    bool caught_up() const;
    bool lingering_while_caught_up() const;
    bool flush_due() const;
    void send_if_caught_up();
    void process_frame(std::span<const char> frame);
    void drop_producer();
    // exactly-once
    void start_kafka_transactions();
    bool kafka_transaction_due() const { return kafka_txns_.due(changes_.receiving_transaction(), Clock::now()); }
    void commit_kafka_transaction();
    void rewind_kafka_transactions();
    Lsn confirmable_lsn();
    void confirm_to_postgres(bool reply_requested = false);
    void check_server_silence();
    bool deliver_in_flight();
    void drain_and_stop();
    std::unique_ptr<kafka::Producer> make_producer(const std::vector<std::pair<std::string, std::string>>& overrides = {});
    void watch_producer();

    const config::Config& config_;
    const std::string bootstrap_servers_;
    observability::Metrics& metrics_;
    bool connected_before_ = false;
    std::uint64_t transactions_reported_ = 0;
    std::chrono::milliseconds status_interval_;
    replication::SilencePolicy silence_;
    std::optional<Clock::time_point> connecting_until_;
    std::optional<Clock::time_point> stop_deadline_;  // a Kafka commit retried after a stop request
    ack::AckTracker tracker_;
    router::OutboxRouter router_;
    std::unique_ptr<kafka::Producer> producer_;
    std::optional<observability::Health::ProbeRegistration> kafka_probe_;  // after producer_: goes first
    pgoutput::Decoder decoder_;
    std::unique_ptr<replication::ReplicationStream> stream_;
    std::unique_ptr<replication::Heartbeat> heartbeat_;
    replication::SourceState source_;
    OutboxSources sources_;  // tag source index → table or message prefix

    Lsn received_lsn_ = 0;
    // Server clock, PostgreSQL epoch: when the server sent the newest message. Against the newest
    // BEGIN's commit time it says whether the router is caught up or reading a backlog.
    std::int64_t newest_send_time_us_ = 0;
    CaughtUpFlush flush_;
    Lsn last_sent_flush_ = 0;
    Clock::time_point next_status_update_{};

    const bool exactly_once_;
    KafkaTransactions kafka_txns_;
    Deliveries deliveries_;
    ChangeHandler changes_;
};

}  // namespace outbox::pipeline
