#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "outbox/ack/ack_tracker.hpp"
#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/kafka/topic_creator.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pipeline/caught_up_flush.hpp"
#include "outbox/pipeline/dead_letter.hpp"
#include "outbox/pipeline/kafka_transactions.hpp"
#include "outbox/pipeline/outbox_sources.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/util/clock.hpp"

namespace outbox::pipeline {

// Everything between a routed record and its acknowledgement: producing it (tagged with its
// transaction and source), the error policy for records that cannot be delivered (stop,
// dead-letter, skip), delivery reports, dead letters, and the in-flight accounting, with one
// reset for every recovery path. Failures found in reports are raised by check_health(), on the
// loop's thread, never from inside librdkafka's callback.
class Deliveries {
public:
    using TxnId = ack::AckTracker::TxnId;

    // `transactions` is null at-least-once.
    Deliveries(const config::Config& config, observability::Metrics& metrics, ack::AckTracker& tracker,
               const OutboxSources& sources, CaughtUpFlush& flush, KafkaTransactions* transactions,
               const Clock& clock);
    Deliveries(const Deliveries&) = delete;
    Deliveries& operator=(const Deliveries&) = delete;

    // The producer records go through from now on (null: none).
    void use(kafka::KafkaProducer* producer);
    // The producer's delivery-report handler.
    void on_delivery(const kafka::DeliveryReport& report);

    // Produces one record of transaction `txn`; a record Kafka refuses at once, or one whose
    // partition placement the topic does not have, goes to reject(). Returns false when the
    // record waits for its topic to be created (topic.creation.*): it is then held, the caller
    // reads nothing more until it went, and `handed_over` is called once it has.
    bool publish(const router::OutboxRecord& record, OutboxSources::Id source, TxnId txn,
                 const router::TransactionContext& context);
    void on_held_record_handed_over(std::function<void()> handed_over) { held_handed_over_ = std::move(handed_over); }
    // Called while a record waits for room in librdkafka's queue, after each serve of the
    // reports: for the loop's other duties, and to end the wait by throwing (a stop request).
    void on_waiting_for_room(std::function<void()> waiting) { waiting_for_room_ = std::move(waiting); }
    // A record waits for its topic.
    bool holding() const { return held_.has_value(); }
    // Hands the held record over once its topic is ready; asks Kafka on otherwise. Never waits.
    void retry_held();
    // The held record will come again (the connection was lost, or the router stops).
    void drop_held() { held_.reset(); }
    // errors.tolerance: none stops the router (throws `error`); all dead-letters the event or skips it.
    void reject(const router::InvalidRowError& error, OutboxSources::Id source, TxnId txn,
                const router::TransactionContext& context, const std::string& original_topic, const std::string& stage,
                HeaderList headers, rd_kafka_resp_err_t kafka_error = RD_KAFKA_RESP_ERR_NO_ERROR);
    // Exactly-once: the position record, last in each Kafka transaction.
    void produce_offsets_record(const kafka::Record& record);
    // Dead letters queued by delivery reports.
    void send_dead_letters();

    // Throws what the reports found: DefiniteError (authentication, fencing, a refused record
    // under errors.tolerance none), ProducerFailed (replace the producer and replay).
    void check_health() const;
    // A produce() refusal that means the producer is in its fatal state.
    void throw_if_failed(rd_kafka_resp_err_t error) const;
    // A record was refused under errors.tolerance none (or in a Kafka transaction).
    bool refused_a_record() const { return !delivery_failure_.empty(); }

    std::size_t bytes_in_flight() const { return bytes_in_flight_; }
    // The producer's records are abandoned (replaced, or its transaction rewound).
    void reset();

private:
    // A routed record waiting for its topic, with everything it views.
    struct Held {
        std::string topic;
        std::int32_t partition;
        std::optional<std::string> key;
        std::optional<std::string> value;
        HeaderList headers;
        std::vector<kafka::Header> header_views;
        std::int64_t timestamp_ms;
        std::string partition_column;
        OutboxSources::Id source;
        TxnId txn;
        router::TransactionContext context;
        router::OutboxRecord record();
    };
    void hand_over(const router::OutboxRecord& record, OutboxSources::Id source, TxnId txn,
                   const router::TransactionContext& context);
    std::optional<router::InvalidRowError> partition_out_of_range(const router::OutboxRecord& record,
                                                                  OutboxSources::Id source,
                                                                  const router::TransactionContext& context) const;
    rd_kafka_resp_err_t produce(const kafka::Record& record, std::uint64_t tag);
    rd_kafka_resp_err_t produce_dead_letter(DeadLetter& letter, std::uint64_t tag);
    observability::Counter& published_counter(std::string_view topic);

    const config::Config& config_;
    observability::Metrics& metrics_;
    ack::AckTracker& tracker_;
    const OutboxSources& sources_;
    CaughtUpFlush& flush_;
    KafkaTransactions* const transactions_;
    const Clock& clock_;
    kafka::TopicCreator topic_creator_;  // topic.creation.*: topics made before their first record
    kafka::KafkaProducer* producer_ = nullptr;

    // By the address of librdkafka's topic name (rd_kafka_topic_name), fixed for as long as its
    // producer lives; a delivery report's topic comes from it. Reports come in runs of one topic
    // (a produce request's batch), hence the last one first.
    std::unordered_map<const char*, observability::Counter*> published_by_topic_;
    // Topics whose partition count the cluster did not give, and when: not asked again for a
    // while, so that a broker away does not hold up every placed record (partition_out_of_range).
    mutable std::unordered_map<std::string, Clock::time_point> partitions_unknown_since_;
    const char* last_published_topic_ = nullptr;
    observability::Counter* last_published_ = nullptr;

    std::optional<Held> held_;
    std::function<void()> held_handed_over_;
    std::function<void()> waiting_for_room_;
    std::size_t bytes_in_flight_ = 0;
    std::vector<std::pair<std::uint64_t, DeadLetter>> dead_letters_to_send_;
    std::string delivery_failure_;  // first record refused under errors.tolerance none: stops the router
    std::string producer_failure_;  // first delivery error not about its record: replace the producer
};

}  // namespace outbox::pipeline
