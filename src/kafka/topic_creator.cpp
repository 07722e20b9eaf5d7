#include "outbox/kafka/topic_creator.hpp"

#include <chrono>

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::kafka {
namespace {

constexpr int kTimeoutMs = 30000;

}  // namespace

void TopicCreator::ensure(KafkaProducer& producer, std::string_view topic) {
    if (!rules_.enabled() || ready_.find(topic) != ready_.end()) return;
    const config::TopicCreationGroup& group = *rules_.group_for(topic);
    const auto outcome = producer.create_topic(topic, group.partitions, group.replication_factor, group.configs, kTimeoutMs);
    const std::string where = "kafka: creating topic \"" + std::string(topic) + "\" (topic.creation group \"" + group.name + "\")";
    if (outcome.error == RD_KAFKA_RESP_ERR__TIMED_OUT || outcome.error == RD_KAFKA_RESP_ERR__TRANSPORT)
        throw TransientError(where + ": " + outcome.message);
    if (outcome.error != RD_KAFKA_RESP_ERR_NO_ERROR && outcome.error != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        throw DefiniteError(where + ": " + outcome.message);
    if (outcome.error == RD_KAFKA_RESP_ERR_NO_ERROR) log::info(where + ": created");
    // A new topic reaches every broker's metadata a moment after the controller made it.
    const auto deadline = clock_.now() + std::chrono::milliseconds(kTimeoutMs);
    while (!producer.partition_count(topic, 0, 1000)) {
        if (clock_.now() > deadline) throw TransientError(where + ": the cluster's metadata does not show it yet");
        producer.serve(50);
    }
    ready_.emplace(topic);
}

}  // namespace outbox::kafka
