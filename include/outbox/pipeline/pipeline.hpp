#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "outbox/ack/ack_tracker.hpp"
#include "outbox/config/config.hpp"
#include "outbox/kafka/producer.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pgoutput/decoder.hpp"
#include "outbox/pipeline/caught_up_flush.hpp"
#include "outbox/pipeline/deliveries.hpp"
#include "outbox/pipeline/kafka_transactions.hpp"
#include "outbox/pipeline/outbox_sources.hpp"
#include "outbox/replication/heartbeat.hpp"
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
    Pipeline(const config::Config& config, const std::string& bootstrap_servers, observability::Metrics& metrics);

    // Streams until ShutdownSignal is requested (returns normally after a clean stop) or a
    // definite error (throws DefiniteError). Connection losses and fatal producer errors are
    // recovered: reconnect with backoff, replay from the slot.
    void run();

private:
    using Clock = std::chrono::steady_clock;
    using TxnId = ack::AckTracker::TxnId;

    struct RelationEntry {
        std::shared_ptr<const router::BoundTable> outbox;  // null: not an outbox table
        std::uint16_t source = 0;
        // An outbox table whose columns do not fit the settings; raised only by a row that must
        // be routed, so replayed transactions that were delivered before do not stop the router.
        std::optional<std::string> bind_error;
    };

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
    void process_message(const pgoutput::Message& message, Lsn wal_position);
    void on_begin(const pgoutput::Begin& begin);
    void on_commit(const pgoutput::Commit& commit, Lsn wal_position);
    void on_relation(const pgoutput::Relation& relation);
    void on_insert(const pgoutput::Insert& insert);
    void on_update(const pgoutput::Update& update);
    void on_message(const pgoutput::LogicalMessage& message);
    bool handed_over_before();
    Lsn replay_skip_position() const;
    void drop_producer();
    // exactly-once
    void start_kafka_transactions();
    bool kafka_transaction_due() const { return kafka_txns_.due(open_txn_.has_value(), Clock::now()); }
    void commit_kafka_transaction();
    void rewind_kafka_transactions();
    Lsn confirmable_lsn();
    Lsn delivered_position() const;
    void confirm_to_postgres(bool reply_requested = false);
    void check_server_silence();
    bool deliver_in_flight();
    void drain_and_stop();
    const RelationEntry& relation(std::uint32_t relid) const;
    std::unique_ptr<kafka::Producer> make_producer(const std::vector<std::pair<std::string, std::string>>& overrides = {});
    void watch_producer();

    const config::Config& config_;
    const std::string bootstrap_servers_;
    observability::Metrics& metrics_;
    bool connected_before_ = false;
    std::uint64_t transactions_reported_ = 0;
    std::chrono::milliseconds status_interval_;
    const std::chrono::milliseconds receive_timeout_;  // 0: off
    Clock::time_point last_heard_{};   // when the replication socket last had something to read
    bool reply_requested_ = false;     // since then
    std::optional<Clock::time_point> connecting_until_;
    ack::AckTracker tracker_;
    router::OutboxRouter router_;
    std::unique_ptr<kafka::Producer> producer_;
    std::optional<observability::Health::ProbeRegistration> kafka_probe_;  // after producer_: goes first
    pgoutput::Decoder decoder_;
    std::unique_ptr<replication::ReplicationStream> stream_;
    std::unique_ptr<replication::Heartbeat> heartbeat_;
    replication::SourceState source_;
    std::unordered_map<std::uint32_t, RelationEntry> relations_;
    OutboxSources sources_;  // tag source index → table or message prefix

    // The transaction being received (between BEGIN and COMMIT).
    std::optional<TxnId> open_txn_;
    bool open_txn_delivered_before_ = false;  // replayed after a reconnect: publish nothing
    router::TransactionContext open_context_;
    std::size_t open_txn_rows_ = 0;  // its outbox rows handed to the producer (or dead-lettered, or skipped)
    std::size_t rows_to_skip_ = 0;   // its first rows, handed over before a reconnect cut it short

    // At-least-once: what the current producer already has, so that a reconnect replays none of
    // it (Kafka acknowledges it without the walsender). The end of the newest transaction handed
    // over in full, and the transaction a lost connection cut short with how many of its rows
    // went. Forgotten when the producer is replaced: then its records are in doubt.
    Lsn handed_over_end_ = 0;
    struct PartlyHandedOver {
        Lsn commit_lsn = 0;
        std::size_t rows = 0;
    };
    std::optional<PartlyHandedOver> partly_handed_over_;

    Lsn received_lsn_ = 0;
    // Server clock, PostgreSQL epoch: the newest BEGIN's commit time, and when the server sent the
    // newest message. Their difference says whether the router is caught up or reading a backlog.
    std::int64_t newest_commit_time_us_ = 0;
    std::int64_t newest_send_time_us_ = 0;
    CaughtUpFlush flush_;
    Lsn last_sent_flush_ = 0;
    Clock::time_point next_status_update_{};

    const bool exactly_once_;
    KafkaTransactions kafka_txns_;
    Deliveries deliveries_;
};

}  // namespace outbox::pipeline
