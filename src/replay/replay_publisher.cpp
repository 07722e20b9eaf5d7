#include "outbox/replay/replay_publisher.hpp"

#include <algorithm>
#include <chrono>

#include "outbox/util/errors.hpp"

namespace outbox::replay {
namespace {

// The router's own transactional.id stays the router's: a producer registering it would fence
// the running router, and a transactional producer refuses records outside a transaction.
config::KafkaSettings without_transactions(config::KafkaSettings settings) {
    std::erase_if(settings.properties, [](const config::KafkaProperty& p) { return p.name == "transactional.id"; });
    return settings;
}

constexpr int kServeMs = 100;
// A wait for Kafka this long is noted, and again as often, so that a paused broker is told
// from a hung replay.
constexpr auto kNoteEvery = std::chrono::seconds(10);

}  // namespace

ReplayPublisher::ReplayPublisher(const config::Config& config, std::function<bool()> stopping,
                                 std::function<void(const std::string&)> note)
    : config_(config),
      stopping_(std::move(stopping)),
      note_(std::move(note)),
      producer_(without_transactions(config.kafka), "", [this](const kafka::DeliveryReport& report) {
          --messages_in_flight_;
          bytes_in_flight_ -= std::min(bytes_in_flight_, report.size);
          if (report.error == RD_KAFKA_RESP_ERR_NO_ERROR) ++acknowledged_;
          else if (failure_.empty())
              failure_ = "topic \"" + std::string(report.topic) + "\": " + rd_kafka_err2str(report.error);
      }) {}

bool ReplayPublisher::full() const {
    return messages_in_flight_ >= static_cast<std::size_t>(std::max(1L, config_.max_inflight_messages)) ||
           bytes_in_flight_ >= static_cast<std::size_t>(std::max(1L, config_.max_inflight_bytes));
}

void ReplayPublisher::throw_if_failed() const {
    if (!failure_.empty()) throw DefiniteError("replay: delivery failed: " + failure_);
    if (const auto fatal = producer_.fatal_error(); !fatal.empty())
        throw DefiniteError("replay: kafka: fatal producer error: " + fatal);
}

void ReplayPublisher::throw_if_stopped(std::string_view waiting_for) const {
    if (stopping_())
        throw TransientError("replay: stopped while waiting for " + std::string(waiting_for) + ", after handing " +
                             std::to_string(handed_over_) + " records to Kafka (" + std::to_string(acknowledged_) +
                             " acknowledged)");
}

void ReplayPublisher::note_wait(std::string_view waiting_for) {
    const auto now = std::chrono::steady_clock::now();
    if (!waiting_since_) {
        waiting_since_ = last_note_ = now;
        return;
    }
    if (now - last_note_ < kNoteEvery) return;
    last_note_ = now;
    note_("waited " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - *waiting_since_).count()) +
          " s for " + std::string(waiting_for) + ": " + std::to_string(handed_over_) + " records handed to Kafka, " +
          std::to_string(acknowledged_) + " acknowledged");
}

// One wait of at most kServeMs for delivery reports: a stop is acted on at least that often.
void ReplayPublisher::serve_waiting(std::string_view waiting_for) {
    throw_if_stopped(waiting_for);
    note_wait(waiting_for);
    producer_.serve(kServeMs);
    throw_if_failed();
}

void ReplayPublisher::publish(const kafka::Record& record, const std::string& row_description) {
    producer_.serve(0);
    throw_if_failed();
    while (full()) serve_waiting("Kafka to acknowledge what is in flight");
    for (;;) {
        const auto error = producer_.produce(record, handed_over_);
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR) break;
        if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            throw DefiniteError("replay: Kafka refused the event of " + row_description + " (topic \"" +
                                std::string(record.topic) + "\"): " + rd_kafka_err2str(error));
        // librdkafka's queue is smaller than the in-flight limits (queue.buffering.max.*).
        serve_waiting("room in librdkafka's queue");
    }
    waiting_since_.reset();
    ++handed_over_;
    ++messages_in_flight_;
    bytes_in_flight_ += kafka::record_size(record);
}

void ReplayPublisher::finish() {
    while (messages_in_flight_ > 0) {
        throw_if_stopped("Kafka to acknowledge the last records");
        note_wait("Kafka to acknowledge the last records");
        producer_.flush(kServeMs);
        throw_if_failed();
    }
}

}  // namespace outbox::replay
