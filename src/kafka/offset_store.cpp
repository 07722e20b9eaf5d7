#include "outbox/kafka/offset_store.hpp"

#include <chrono>
#include <memory>

#include "outbox/kafka/client_conf.hpp"
#include "outbox/kafka/topic_reader.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTimeoutMs = 30000;
constexpr int kCreateTimeoutMs = 5000;

HandlePtr client(rd_kafka_type_t type, ConfPtr conf) {
    char error[512];
    HandlePtr handle(rd_kafka_new(type, conf.get(), error, sizeof error));
    if (!handle) throw ConfigError(std::string("kafka: cannot create a client for the offsets topic: ") + error);
    conf.release();  // rd_kafka_new took it
    return handle;
}

int partition_count(rd_kafka_t* rk, const std::string& topic) {
    rd_kafka_topic_t* handle = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    const TopicPtr owned(handle);
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(rk, 0, handle, &raw, kTimeoutMs);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR)
        throw TransientError(std::string("kafka: cannot read metadata of the offsets topic: ") + rd_kafka_err2str(error));
    const MetadataPtr metadata(raw);
    if (metadata->topic_cnt != 1 || metadata->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) return 0;
    return metadata->topics[0].partition_cnt;
}

}  // namespace

OffsetStore::OffsetStore(const config::KafkaSettings& settings, std::string bootstrap_servers, std::string topic,
                         SourceIdentity source)
    : settings_(settings), bootstrap_servers_(std::move(bootstrap_servers)), topic_(std::move(topic)),
      source_(std::move(source)), key_(source_.key()) {}

void OffsetStore::ensure_topic() {
    const HandlePtr admin = client(RD_KAFKA_PRODUCER, client_conf(settings_, bootstrap_servers_, {}));
    if (partition_count(admin.get(), topic_) > 0) return;
    char error[512];
    // One partition: there are few sources, and compaction keeps one record per source.
    rd_kafka_NewTopic_t* raw_topic = rd_kafka_NewTopic_new(topic_.c_str(), 1, -1, error, sizeof error);
    if (!raw_topic) throw ConfigError("offsets.topic: " + std::string(error));
    const NewTopicPtr new_topic(raw_topic);
    rd_kafka_NewTopic_set_config(new_topic.get(), "cleanup.policy", "compact");
    const QueuePtr queue(rd_kafka_queue_new(admin.get()));
    rd_kafka_NewTopic_t* topics[] = {new_topic.get()};
    rd_kafka_CreateTopics(admin.get(), topics, 1, nullptr, queue.get());
    rd_kafka_event_t* event = rd_kafka_queue_poll(queue.get(), kCreateTimeoutMs);
    if (!event) {
        // Some brokers (and librdkafka's mock cluster) do not answer CreateTopics; the topic is
        // then auto-created on first use, without compaction.
        log::warn("kafka: no answer creating the offsets topic \"" + topic_ +
                  "\"; if it is auto-created, set cleanup.policy=compact on it (see docs/operations.md)");
        return;
    }
    const EventPtr owned_event(event);
    const rd_kafka_CreateTopics_result_t* result = rd_kafka_event_CreateTopics_result(event);
    size_t count = 0;
    const rd_kafka_topic_result_t** results = result ? rd_kafka_CreateTopics_result_topics(result, &count) : nullptr;
    const rd_kafka_resp_err_t outcome =
        count == 1 ? rd_kafka_topic_result_error(results[0]) : rd_kafka_event_error(event);
    if (outcome == RD_KAFKA_RESP_ERR_NO_ERROR)
        log::info("kafka: created the compacted offsets topic \"" + topic_ + "\"");
    else if (outcome != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        log::warn("kafka: cannot create the offsets topic \"" + topic_ + "\" (" + rd_kafka_err2str(outcome) +
                  "); if it is auto-created, set cleanup.policy=compact on it (see docs/operations.md)");
}

Lsn OffsetStore::read_committed_position() {
    const HandlePtr consumer = client(
        RD_KAFKA_CONSUMER, client_conf(settings_, bootstrap_servers_,
                                       {{"group.id", "outbox-router-offsets-reader"},
                                        {"enable.auto.commit", "false"},
                                        {"enable.partition.eof", "true"},
                                        // An empty partition's end is known only from a fetch
                                        // answer, which the broker holds this long for data.
                                        {"fetch.wait.max.ms", "10"},
                                        {"isolation.level", "read_committed"}}));
    const int partitions = partition_count(consumer.get(), topic_);
    if (partitions == 0) return 0;
    Lsn position = 0;
    const auto deadline = Clock::now() + std::chrono::milliseconds(kTimeoutMs);
    const bool complete = read_topic_to_end(
        consumer.get(), topic_, partitions, deadline,
        [&](const rd_kafka_message_t& message) {
            if (!message.key || std::string_view(static_cast<const char*>(message.key), message.key_len) != key_ ||
                !message.payload)
                return;
            const auto lsn = OffsetsRecord::position_of(
                std::string_view(static_cast<const char*>(message.payload), message.len));
            if (!lsn)
                throw DefiniteError("kafka: offsets topic " + topic_ + " holds a record for " + key_ +
                                    " that is not an outbox-router position");
            position = std::max(position, *lsn);
        },
        {},
        [&](const rd_kafka_message_t& message) {
            throw TransientError("kafka: reading the offsets topic: " + std::string(rd_kafka_message_errstr(&message)));
        });
    if (!complete) throw TransientError("kafka: timed out reading the offsets topic " + topic_);
    rd_kafka_consumer_close(consumer.get());
    return position;
}

}  // namespace outbox::kafka
