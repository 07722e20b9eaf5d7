#include "outbox/pipeline/deliveries.hpp"

#include <algorithm>
#include <chrono>

#include "outbox/kafka/delivery_error.hpp"
#include "outbox/pipeline/producer_failed.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {
namespace {

// The opaque each produced record carries back in its delivery report.
struct EventTag {
    static constexpr std::uint64_t kDeadLetterBit = 1ULL << 63;
    static constexpr int kSourceShift = 40;
    static constexpr std::uint64_t kTxnMask = (1ULL << kSourceShift) - 1;

    std::uint64_t txn = 0;      // AckTracker id
    std::uint16_t source = 0;   // index into the pipeline's sources (table or message prefix)
    bool dead_letter = false;

    std::uint64_t encode() const {
        return (txn & kTxnMask) | static_cast<std::uint64_t>(source) << kSourceShift | (dead_letter ? kDeadLetterBit : 0);
    }
    static EventTag decode(std::uint64_t tag) {
        return {tag & kTxnMask, static_cast<std::uint16_t>((tag & ~kDeadLetterBit) >> kSourceShift),
                (tag & kDeadLetterBit) != 0};
    }
};

// The record that stores the exactly-once position rides in each Kafka transaction; its delivery
// report carries this tag and no transaction of the tracker.
constexpr std::uint64_t kOffsetsRecordTag = 1ULL << 62;

std::optional<std::string> owned(std::optional<std::string_view> view) {
    return view ? std::optional<std::string>(std::string(*view)) : std::nullopt;
}

HeaderList headers_of(std::span<const kafka::Header> record_headers) {
    HeaderList headers;
    for (const auto& h : record_headers) headers.emplace_back(std::string(h.name), owned(h.value));
    return headers;
}

HeaderList headers_of(const kafka::Record& record) { return headers_of(record.headers); }

}  // namespace

Deliveries::Deliveries(const config::Config& config, observability::Metrics& metrics, ack::AckTracker& tracker,
                       const OutboxSources& sources, CaughtUpFlush& flush, KafkaTransactions* transactions,
                       const Clock& clock)
    : config_(config), metrics_(metrics), tracker_(tracker), sources_(sources), flush_(flush), transactions_(transactions),
      clock_(clock), topic_creator_(config.topic_creation, clock) {}

void Deliveries::use(kafka::KafkaProducer* producer) {
    producer_ = producer;
    topic_creator_.producer_replaced();
    // Topic names are known by address, and a new producer has topic handles of its own; the
    // previous one is gone or never served again.
    published_by_topic_.clear();
    last_published_topic_ = nullptr;
}

void Deliveries::reset() {
    held_.reset();
    bytes_in_flight_ = 0;
    dead_letters_to_send_.clear();
    delivery_failure_.clear();
    producer_failure_.clear();
    metrics_.in_flight_messages.set(0);
    metrics_.in_flight_bytes.set(0);
}

// librdkafka's queue can hold fewer records than the in-flight limits let through (its
// queue.buffering.max.* set below them): a record then waits for room, while the reports that
// make room are served and the caller's duties go on.
rd_kafka_resp_err_t Deliveries::produce(const kafka::Record& record, std::uint64_t tag) {
    constexpr int kServeMs = 100;
    for (;;) {
        const rd_kafka_resp_err_t error = producer_->produce(record, tag);
        if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL) return error;
        producer_->serve(kServeMs);
        if (waiting_for_room_) waiting_for_room_();
    }
}

void Deliveries::produce_offsets_record(const kafka::Record& record) {
    const auto refused = produce(record, kOffsetsRecordTag);
    throw_if_failed(refused);
    if (refused != RD_KAFKA_RESP_ERR_NO_ERROR)
        throw TransientError(std::string("kafka: cannot write the offsets record: ") + rd_kafka_err2str(refused));
}

bool Deliveries::publish(const router::OutboxRecord& record, OutboxSources::Id source, TxnId txn,
                         const router::TransactionContext& context) {
    if (topic_creator_.ready(*producer_, record.topic)) {
        hand_over(record, source, txn, context);
        return true;
    }
    Held held{std::string(record.topic), record.partition, owned(record.key), owned(record.value), headers_of(record),
              {}, record.timestamp_ms, std::string(record.partition_column), source, txn, context};
    held_ = std::move(held);
    return false;
}

router::OutboxRecord Deliveries::Held::record() {
    header_views.clear();
    for (const auto& [name, value] : headers)
        header_views.push_back({name, value ? std::optional<std::string_view>(*value) : std::nullopt});
    router::OutboxRecord r;
    r.topic = topic;
    r.partition = partition;
    if (key) r.key = *key;
    if (value) r.value = *value;
    r.headers = header_views;
    r.timestamp_ms = timestamp_ms;
    r.partition_column = partition_column;
    return r;
}

void Deliveries::retry_held() {
    if (!held_ || !producer_ || !topic_creator_.ready(*producer_, held_->topic)) return;
    Held held = std::move(*held_);
    held_.reset();
    hand_over(held.record(), held.source, held.txn, held.context);
    if (held_handed_over_) held_handed_over_();
}

void Deliveries::hand_over(const router::OutboxRecord& record, OutboxSources::Id source, TxnId txn,
                           const router::TransactionContext& context) {
    if (const auto out_of_range = partition_out_of_range(record, source, context)) {
        reject(*out_of_range, source, txn, context, std::string(record.topic), "route", headers_of(record));
        return;
    }
    const EventTag tag{txn, source, false};
    if (transactions_) transactions_->add(*producer_, kafka::record_size(record));
    const rd_kafka_resp_err_t error = produce(record, tag.encode());
    throw_if_failed(error);
    if (error == RD_KAFKA_RESP_ERR_NO_ERROR) {
        flush_.handed_over();
        tracker_.event_sent(txn);
        bytes_in_flight_ += kafka::record_size(record);
        metrics_.in_flight_messages.add(1);
        metrics_.in_flight_bytes.add(static_cast<std::int64_t>(kafka::record_size(record)));
        return;
    }
    const std::string cause = std::string("Kafka refused the record: ") + rd_kafka_err2str(error);
    const router::InvalidRowError refused(sources_[source].description + ", transaction committing at LSN " +
                                              format_lsn(context.commit_lsn) + ": topic \"" +
                                              std::string(record.topic) + "\": " + cause,
                                          sources_[source].description, owned(record.key), owned(record.value), std::nullopt);
    switch (kafka::classify_delivery_error(error)) {
        case kafka::DeliveryErrorClass::record:
            return reject(refused, source, txn, context, std::string(record.topic), "produce", headers_of(record), error);
        case kafka::DeliveryErrorClass::producer:
            throw ProducerFailed(refused.what());
        case kafka::DeliveryErrorClass::definite:
            throw DefiniteError(refused.what());
    }
}

// A partition placement past the topic's partitions would fail only at delivery, without the
// column's name, after later rows of the transaction went out: checked here, before producing.
std::optional<router::InvalidRowError> Deliveries::partition_out_of_range(const router::OutboxRecord& record,
                                                                           OutboxSources::Id source,
                                                                           const router::TransactionContext& context) const {
    if (record.partition < 0) return std::nullopt;
    // Unknown (a broker away): produced unchecked, and librdkafka refuses a partition that does
    // not exist at delivery. The look-up blocks the loop, so it is short and not repeated soon.
    constexpr auto kLookupTimeout = std::chrono::milliseconds(1000);
    constexpr auto kRetryUnknownAfter = std::chrono::seconds(5);
    const auto now = clock_.now();
    const auto unknown = partitions_unknown_since_.find(std::string(record.topic));
    if (unknown != partitions_unknown_since_.end() && now - unknown->second < kRetryUnknownAfter) return std::nullopt;
    const auto partitions = producer_->partition_count(record.topic, record.partition, static_cast<int>(kLookupTimeout.count()));
    if (!partitions) partitions_unknown_since_[std::string(record.topic)] = now;
    else if (unknown != partitions_unknown_since_.end()) partitions_unknown_since_.erase(unknown);
    if (!partitions || record.partition < *partitions) return std::nullopt;
    const bool message = sources_[source].kind == OutboxSources::Kind::message_prefix;
    return router::InvalidRowError(
        sources_[source].description + ", " + (message ? "field" : "column") + " \"" + std::string(record.partition_column) +
            "\" (table.fields.additional.placement), transaction committing at LSN " +
            format_lsn(context.commit_lsn) + ": partition " + std::to_string(record.partition) +
            " is out of range: topic \"" + std::string(record.topic) + "\" has " + std::to_string(*partitions) +
            " partitions",
        sources_[source].description, owned(record.key), owned(record.value), std::nullopt);
}

namespace {

bool too_large(rd_kafka_resp_err_t error) {
    return error == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE || error == RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE;
}

std::string dropped_because(rd_kafka_resp_err_t error) {
    return std::string("the record is too large for Kafka (") + rd_kafka_err2name(error) + ")";
}

}  // namespace

// A dead letter too large for Kafka goes again without the original value: it must fit.
rd_kafka_resp_err_t Deliveries::produce_dead_letter(DeadLetter& letter, std::uint64_t tag) {
    rd_kafka_resp_err_t refused = produce(letter.record(), tag);
    if (too_large(refused) && letter.has_value()) {
        letter.drop_value(dropped_because(refused));
        refused = produce(letter.record(), tag);
    }
    throw_if_failed(refused);
    return refused;
}

// errors.tolerance: none stops the router; all dead-letters the event or skips it.
void Deliveries::reject(const router::InvalidRowError& error, OutboxSources::Id source, TxnId txn,
                        const router::TransactionContext& context, const std::string& original_topic,
                        const std::string& stage, HeaderList headers, rd_kafka_resp_err_t kafka_error) {
    if (config_.errors_tolerance == config::ErrorTolerance::none) throw error;
    if (config_.dead_letter_topic.empty()) {
        log::warn(std::string("skipping an event that cannot be delivered (errors.tolerance: all): ") + error.what());
        sources_[source].skipped_invalid->add();
        return;
    }
    log::warn("dead-lettering to \"" + config_.dead_letter_topic + "\": " + error.what());
    DeadLetter letter(config_.dead_letter_topic, error.key, error.value, std::move(headers), original_topic, stage,
                      error.what(),
                      {sources_[source].description, context.commit_lsn, context.xid, context.commit_time_ms});
    if (too_large(kafka_error)) letter.drop_value(dropped_because(kafka_error));
    const EventTag tag{txn, source, true};
    if (transactions_) transactions_->add(*producer_, kafka::record_size(letter.record()));
    const rd_kafka_resp_err_t refused = produce_dead_letter(letter, tag.encode());
    const auto record = letter.record();
    if (refused != RD_KAFKA_RESP_ERR_NO_ERROR)
        throw DefiniteError(std::string(error.what()) + "; the dead-letter topic refused it too: " + rd_kafka_err2str(refused));
    tracker_.event_sent(txn);
    bytes_in_flight_ += kafka::record_size(record);
    metrics_.in_flight_messages.add(1);
    metrics_.in_flight_bytes.add(static_cast<std::int64_t>(kafka::record_size(record)));
}

void Deliveries::on_delivery(const kafka::DeliveryReport& report) {
    if (report.tag == kOffsetsRecordTag) return;  // its failure fails the commit, handled there
    EventTag tag = EventTag::decode(report.tag);
    tag.txn = tracker_.issued_id(tag.txn, EventTag::kSourceShift);
    if (tracker_.discarded(tag.txn)) return;  // carried by a producer that has been replaced
    if (!tag.dead_letter) flush_.reported(clock_.now());
    metrics_.in_flight_messages.add(-1);
    metrics_.in_flight_bytes.add(-static_cast<std::int64_t>(report.size));
    if (report.error == RD_KAFKA_RESP_ERR_NO_ERROR) {
        bytes_in_flight_ -= std::min(bytes_in_flight_, report.size);
        const std::int64_t commit_time_ms = tracker_.event_delivered(tag.txn).commit_time_ms;
        if (tag.dead_letter) {
            metrics_.events_dead_lettered.with({sources_[tag.source].label, report.topic}).add();
            return;
        }
        published_counter(report.topic).add();
        metrics_.commit_to_ack_seconds.observe(
            std::max(0.0, static_cast<double>(report.served_at_ms - commit_time_ms) / 1000.0));
        return;
    }
    metrics_.producer_errors.add();
    const std::string cause = "kafka: delivery to topic \"" + std::string(report.topic) + "\" failed: " +
                              rd_kafka_err2str(report.error);
    // Never acknowledged, so its transaction is never confirmed: the slot keeps the event.
    const auto kind = kafka::classify_delivery_error(report.error);
    if (kind == kafka::DeliveryErrorClass::producer) {
        // Not about this record (timed out, epoch fenced, ...): the producer replays it.
        if (producer_failure_.empty()) producer_failure_ = cause;
        return;
    }
    if (tag.dead_letter && too_large(report.error) && report.value && !transactions_) {
        // The dead-letter topic takes smaller records than the original's: send it without the value.
        bytes_in_flight_ -= std::min(bytes_in_flight_, report.size);
        DeadLetter again(std::string(report.topic), owned(report.key), owned(report.value), headers_of(report.headers),
                         report.timestamp_ms);
        again.drop_value(dropped_because(report.error));
        dead_letters_to_send_.emplace_back(report.tag, std::move(again));
        return;
    }
    if (kind == kafka::DeliveryErrorClass::definite || tag.dead_letter ||
        config_.errors_tolerance == config::ErrorTolerance::none || transactions_) {
        // In exactly-once mode a record refused after sending fails its Kafka transaction, which
        // then cannot commit; dead-lettering it would need a transaction of its own.
        if (delivery_failure_.empty()) delivery_failure_ = cause;
        return;
    }
    bytes_in_flight_ -= std::min(bytes_in_flight_, report.size);
    const auto& info = tracker_.info(tag.txn);
    const std::string what = sources_[tag.source].description + ", transaction committing at LSN " + format_lsn(info.commit_lsn) +
                             ": " + cause;
    if (config_.dead_letter_topic.empty()) {
        log::warn("skipping an event that cannot be delivered (errors.tolerance: all): " + what);
        sources_[tag.source].skipped_undeliverable->add();
        tracker_.event_delivered(tag.txn);
        return;
    }
    // Produced after serve() returns (never from inside librdkafka's callback); the dead letter
    // takes over the original's place in the transaction's count.
    log::warn("dead-lettering to \"" + config_.dead_letter_topic + "\": " + what);
    DeadLetter letter(config_.dead_letter_topic, owned(report.key), owned(report.value), headers_of(report.headers),
                      std::string(report.topic), "produce", what,
                      {sources_[tag.source].description, info.commit_lsn, info.xid, info.commit_time_ms});
    if (too_large(report.error)) letter.drop_value(dropped_because(report.error));
    dead_letters_to_send_.emplace_back(EventTag{tag.txn, tag.source, true}.encode(), std::move(letter));
}

observability::Counter& Deliveries::published_counter(std::string_view topic) {
    if (topic.data() == last_published_topic_) return *last_published_;
    auto& counter = published_by_topic_[topic.data()];
    if (!counter) counter = &metrics_.events_published.with({topic});
    last_published_topic_ = topic.data();
    last_published_ = counter;
    return *counter;
}

void Deliveries::send_dead_letters() {
    // produce() may serve reports while librdkafka's queue is full, and a failed one queues a
    // dead letter of its own: that one waits for the next round instead of landing in the list
    // being sent (where it was skipped, or moved the letters under this loop).
    auto letters = std::exchange(dead_letters_to_send_, {});
    for (auto& [tag, letter] : letters) {
        const rd_kafka_resp_err_t refused = produce_dead_letter(letter, tag);
        const auto record = letter.record();
        if (refused != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw DefiniteError(std::string("kafka: the dead-letter topic refused a record: ") + rd_kafka_err2str(refused));
        bytes_in_flight_ += kafka::record_size(record);
        metrics_.in_flight_messages.add(1);
        metrics_.in_flight_bytes.add(static_cast<std::int64_t>(kafka::record_size(record)));
    }
}

// produce() refuses every record once the producer is in a fatal state, often before a delivery
// report has shown it: fail with librdkafka's cause (a fencing included), as check_kafka_health does.
void Deliveries::throw_if_failed(rd_kafka_resp_err_t error) const {
    if (error != RD_KAFKA_RESP_ERR__FATAL) return;
    check_health();
    throw ProducerFailed("kafka: fatal producer error: librdkafka reports no cause");
}

void Deliveries::check_health() const {
    if (!producer_) return;
    if (const auto& refused = producer_->authentication_failure(); !refused.empty()) throw DefiniteError(refused);
    if (const auto fatal = producer_->fatal_error(); !fatal.empty()) {
        if (transactions_ && producer_->fenced())
            throw ProducerFencedError("kafka: this router was fenced: another instance with transactional.id \"" +
                                transactions_->transactional_id() + "\" took over the slot's work (" + fatal + ")");
        throw ProducerFailed("kafka: fatal producer error: " + fatal);
    }
    if (!producer_failure_.empty()) {
        // A broker that refuses TLS while the others serve holds back the partitions it leads:
        // a failed delivery is what it costs, and replacing the producer cannot change it.
        if (const auto& refused = producer_->refusal_blocking_delivery(); !refused.empty())
            throw DefiniteError(refused + "; " + producer_failure_);
        throw ProducerFailed(producer_failure_);
    }
    if (!delivery_failure_.empty())
        throw DefiniteError(delivery_failure_ + "; confirmed up to " + format_lsn(tracker_.confirmed_lsn()) +
                            " and nothing past it");
}

}  // namespace outbox::pipeline
