#include "outbox/kafka/topic_creator.hpp"

#include <algorithm>

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::kafka {
namespace {

constexpr std::chrono::milliseconds kLongestRetry{5000};

std::string where(std::string_view topic, const config::TopicCreationGroup& group) {
    return "kafka: creating topic \"" + std::string(topic) + "\" (topic.creation group \"" + group.name + "\")";
}

// Kafka Connect's TopicAdmin takes these as "not allowed or not able to create: assume the topic
// exists"; a record to a topic that really is missing then fails on its own, per errors.tolerance.
bool assume_exists(rd_kafka_resp_err_t error) {
    return error == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
           error == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED ||
           error == RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION || error == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE;
}

// The cluster could not answer now; asking again can succeed.
bool retriable(rd_kafka_resp_err_t error) {
    switch (error) {
        case RD_KAFKA_RESP_ERR__TIMED_OUT:
        case RD_KAFKA_RESP_ERR__TRANSPORT:
        case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
        case RD_KAFKA_RESP_ERR__FAIL:
        case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
        case RD_KAFKA_RESP_ERR_NOT_CONTROLLER:
        case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
        case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
        case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
        case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
            return true;
        default:
            return false;
    }
}

}  // namespace

bool TopicCreator::ready(KafkaProducer& producer, std::string_view topic) {
    if (!rules_.enabled() || ready_.find(topic) != ready_.end()) return true;
    auto found = pending_.find(topic);
    if (found == pending_.end()) found = pending_.emplace(std::string(topic), Pending{}).first;
    Pending& pending = found->second;
    if (!pending.asked) {
        if (clock_.now() >= pending.next_request) ask(producer, topic, pending);
        return false;
    }
    const auto answer = producer.admin_answer(topic);
    if (!answer) return false;
    pending.asked = false;
    if (!answered(topic, pending, *answer)) return false;
    ready_.emplace(topic);
    pending_.erase(found);
    return true;
}

void TopicCreator::ask(KafkaProducer& producer, std::string_view topic, Pending& pending) {
    if (pending.step == Pending::Step::create) {
        const auto& group = *rules_.group_for(topic);
        producer.create_topic(topic, group.partitions, group.replication_factor, group.configs);
    } else {
        producer.look_up_topic(topic);
    }
    pending.asked = true;
}

void TopicCreator::retry_later(Pending& pending) {
    pending.next_request = clock_.now() + pending.retry;
    pending.retry = std::min(pending.retry * 2, kLongestRetry);
}

// Whether the topic is ready after this answer; otherwise the next step is set.
bool TopicCreator::answered(std::string_view topic, Pending& pending, const KafkaProducer::AdminAnswer& answer) {
    const auto& group = *rules_.group_for(topic);
    switch (pending.step) {
        case Pending::Step::look_up:
            if (answer.error == RD_KAFKA_RESP_ERR_NO_ERROR && answer.partitions > 0) return true;
            // Missing, or the lookup failed: CreateTopics says which.
            pending.step = Pending::Step::create;
            return false;
        case Pending::Step::confirm:
            // A new topic reaches every broker's metadata a moment after the controller made it.
            if (answer.error == RD_KAFKA_RESP_ERR_NO_ERROR && answer.partitions > 0) return true;
            retry_later(pending);
            return false;
        case Pending::Step::create:
            break;
    }
    if (answer.error == RD_KAFKA_RESP_ERR_NO_ERROR || answer.error == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        if (answer.error == RD_KAFKA_RESP_ERR_NO_ERROR) log::info(where(topic, group) + ": created");
        pending.step = Pending::Step::confirm;
        pending.retry = std::chrono::milliseconds(100);
        return false;
    }
    if (assume_exists(answer.error)) {
        log::warn(where(topic, group) + ": " + answer.message + " (" + rd_kafka_err2name(answer.error) +
                  "); assuming the topic exists, as Kafka Connect does");
        return true;
    }
    if (retriable(answer.error)) {
        log::warn(where(topic, group) + ": " + answer.message + "; asking again in " +
                  std::to_string(pending.retry.count()) + " ms");
        retry_later(pending);
        return false;
    }
    throw DefiniteError(where(topic, group) + ": " + answer.message);
}

void TopicCreator::producer_replaced() {
    for (auto& [topic, pending] : pending_) pending.asked = false;
}

}  // namespace outbox::kafka
