#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "outbox/ack/ack_tracker.hpp"
#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_connector.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pgoutput/decoder.hpp"
#include "outbox/pipeline/caught_up_flush.hpp"
#include "outbox/pipeline/change_handler.hpp"
#include "outbox/pipeline/deliveries.hpp"
#include "outbox/pipeline/kafka_transactions.hpp"
#include "outbox/pipeline/outbox_sources.hpp"
#include "outbox/pipeline/slot_start.hpp"
#include "outbox/pipeline/stop_request.hpp"
#include "outbox/replication/slot_port.hpp"
#include "outbox/replication/source_state.hpp"
#include "outbox/replication/wal_stream.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/util/clock.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::pipeline {

// The pipeline's decisions, whatever they run against: walsender frames decoded and handed to
// the change handler, the producer and its replacement, deliveries, Kafka transactions, what may
// be confirmed and when the status update is due, what a lost connection or a failed producer
// means, draining and stopping. It reaches PostgreSQL through a WalStream and Kafka through a
// KafkaConnector and its producers, and reads time from a Clock: pipeline.cpp wires libpq,
// librdkafka and the machine's clocks and waits on their descriptors; tests/simulation wires
// simulated ones. Nothing here blocks except through those ports.
class StreamCore {
public:
    StreamCore(const config::Config& config, observability::Metrics& metrics, kafka::KafkaConnector& kafka,
               const Clock& clock, StopRequested stop_requested);
    StreamCore(const StreamCore&) = delete;
    StreamCore& operator=(const StreamCore&) = delete;

    router::OutboxRouter& router() { return router_; }
    // What the connections learned about the source; the connecting side fills it in.
    replication::SourceState& source() { return source_; }
    // Called with each new producer (null when it is given up), e.g. for a health probe.
    void on_producer_change(std::function<void(kafka::KafkaProducer*)> watcher);

    // On a new connection, once source() describes the server: the slot is looked up, or
    // created when missing and allowed (SlotStart). Throws DefiniteError when it is refused.
    void prepare_slot(replication::SlotPort& slots);
    // Before streaming on a new connection: the position this process holds must lie in the
    // server's history (source() describes the server). Throws DefiniteError.
    void check_resume_position() const;
    // The stream has started on `stream` (START_REPLICATION succeeded: the slot is ours).
    void attach(replication::WalStream& stream);
    // Exactly-once, after attach(): a new transactional producer fences older instances, and
    // the offsets topic says where to resume. Blocks on Kafka: keep the connection fed meanwhile.
    // A slot this start created that would hide a gap is dropped through `slots` (SlotGapError).
    void start_kafka_transactions(replication::SlotPort& slots);
    // The connection is ready to stream.
    void streaming();
    bool attached() const { return stream_ != nullptr; }

    // One turn of the loop: serve Kafka's reports (`serve_ms` waiting for the first, -1: only act
    // on those already served), process up to `max_frames` received frames unless saturated,
    // flush when caught up, commit a due Kafka transaction, send a due status update. Returns the
    // frames processed.
    void serve_kafka(int timeout_ms);
    void act_on_deliveries();
    int process_received(int max_frames);
    void send_if_caught_up();
    void finish_turn();

    // At the in-flight limits the socket is left unread.
    bool saturated() const;
    bool caught_up() const;
    bool lingering_while_caught_up() const;
    // The earliest moment something is due: a status update, a Kafka transaction's time limit,
    // a caught-up flush's recheck.
    Clock::time_point next_due() const;
    std::chrono::milliseconds status_interval() const { return status_interval_; }
    // A status update asking the server to reply at once.
    void request_reply();

    // Between connections, until `reconnect_at`: one wake-up (Kafka's reports served, progress
    // reported). Returns when to wake next (earlier when Kafka's wake-up descriptor is readable);
    // nothing when the wait is over: it is time, a stop was asked for, or a dead letter's wait
    // for room ended at a stop.
    std::optional<Clock::time_point> wait_between_connections(Clock::time_point reconnect_at);
    // The connection was lost (TransientError): what was being received comes again.
    void connection_lost();
    // The producer is beyond repair: replace it and replay from the slot (or rewind the Kafka
    // transaction).
    void producer_failed(const std::string& reason);
    // A definite error stops the router: tell the server what is safely delivered first.
    void definite_error();
    // Waits up to shutdown.timeout.ms for Kafka to acknowledge what is in flight; false when it
    // failed first.
    bool deliver_in_flight();
    // A clean stop: deliver, commit or rewind, last status update, end of stream.
    void drain_and_stop();

    int kafka_wakeup_fd() const { return producer_ ? producer_->wakeup_fd() : -1; }
    Lsn confirmed_lsn() const { return tracker_.confirmed_lsn(); }
    // The newest WAL position the server has sent.
    Lsn received_lsn() const { return received_lsn_; }
    const ack::AckTracker& tracker() const { return tracker_; }
    bool exactly_once() const { return exactly_once_; }

private:
    void throw_if_kafka_refuses_us(const TransientError& cause);
    void process_frame(std::span<const char> frame);
    bool flush_due() const;
    bool kafka_transaction_due() const { return kafka_txns_.due(changes_.receiving_transaction(), clock_.now()); }
    void commit_kafka_transaction();
    void keep_up_while_kafka_waits();
    void rewind_kafka_transactions();
    void check_position(Lsn position, const std::string& what) const;
    Lsn confirmable_lsn();
    void confirm_to_postgres(bool reply_requested = false);
    void make_producer(const std::vector<std::pair<std::string, std::string>>& overrides = {});
    void drop_producer();

    const config::Config& config_;
    observability::Metrics& metrics_;
    kafka::KafkaConnector& kafka_;
    const Clock& clock_;
    StopRequested stop_requested_;
    const bool exactly_once_;
    std::function<void(kafka::KafkaProducer*)> producer_watcher_;

    bool connected_before_ = false;
    std::uint64_t transactions_reported_ = 0;
    std::chrono::milliseconds status_interval_;
    Clock::time_point next_status_update_{};
    std::optional<Clock::time_point> stop_deadline_;  // a Kafka commit retried after a stop request
    Lsn last_sent_flush_ = 0;

    ack::AckTracker tracker_;
    router::OutboxRouter router_;
    std::unique_ptr<kafka::KafkaProducer> producer_;
    pgoutput::Decoder decoder_;
    replication::WalStream* stream_ = nullptr;
    replication::SourceState source_;
    SlotStart slot_start_;
    OutboxSources sources_;  // tag source index → table or message prefix

    Lsn received_lsn_ = 0;
    // Server clock, PostgreSQL epoch: when the server sent the newest message. Against the newest
    // BEGIN's commit time it says whether the router is caught up or reading a backlog.
    std::int64_t newest_send_time_us_ = 0;
    CaughtUpFlush flush_;

    KafkaTransactions kafka_txns_;
    Deliveries deliveries_;
    ChangeHandler changes_;
};

}  // namespace outbox::pipeline
