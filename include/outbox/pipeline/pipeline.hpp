#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "outbox/ack/ack_tracker.hpp"
#include "outbox/config/config.hpp"
#include "outbox/kafka/producer.hpp"
#include "outbox/pgoutput/decoder.hpp"
#include "outbox/replication/replication_stream.hpp"
#include "outbox/replication/source_setup.hpp"
#include "outbox/router/outbox_router.hpp"

namespace outbox::pipeline {

// One slot's flow: replication stream → pgoutput decoder → outbox router → Kafka producer →
// acknowledgement tracker → status updates back to PostgreSQL. Single-threaded: one poll()
// loop waits on the replication socket, librdkafka's delivery-report queue and the shutdown
// signal, so delivery reports are served while the socket is busy and status updates go out
// on time whatever Kafka is doing.
class Pipeline {
public:
    // `bootstrap_servers` overrides kafka.bootstrap.servers (embedded cluster) when non-empty.
    Pipeline(const config::Config& config, const std::string& bootstrap_servers);

    // Streams until ShutdownSignal is requested (returns normally after a clean stop) or a
    // definite error (throws DefiniteError). Connection losses are retried with backoff.
    void run();

private:
    using Clock = std::chrono::steady_clock;

    struct RelationEntry {
        std::shared_ptr<const router::BoundTable> outbox;  // null: not an outbox table
    };

    void connect();
    void stream();
    void process_frame(std::span<const char> frame);
    void process_message(const pgoutput::Message& message, Lsn wal_position);
    void on_relation(const pgoutput::Relation& relation);
    void on_insert(const pgoutput::Insert& insert);
    void on_update(const pgoutput::Update& update);
    void on_message(const pgoutput::LogicalMessage& message);
    void publish(const router::OutboxRecord& record);
    void on_delivery(const kafka::DeliveryReport& report);
    void confirm_to_postgres(bool reply_requested);
    void check_kafka_health() const;
    void drain_and_stop();
    const RelationEntry& relation(std::uint32_t relid) const;

    const config::Config& config_;
    std::chrono::milliseconds status_interval_;
    ack::AckTracker tracker_;
    router::OutboxRouter router_;
    kafka::Producer producer_;
    pgoutput::Decoder decoder_;
    std::unique_ptr<replication::ReplicationStream> stream_;
    replication::SourceState source_;
    std::unordered_map<std::uint32_t, RelationEntry> relations_;

    // The transaction being received (between BEGIN and COMMIT).
    std::optional<ack::AckTracker::TxnId> open_txn_;
    router::TransactionContext open_context_;

    Lsn received_lsn_ = 0;
    Lsn last_sent_flush_ = 0;
    Clock::time_point next_status_update_{};
    std::string delivery_failure_;  // first permanent delivery error, if any
};

}  // namespace outbox::pipeline
