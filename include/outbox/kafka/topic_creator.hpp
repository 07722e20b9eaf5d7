#pragma once

#include <set>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/kafka/topic_creation_rules.hpp"
#include "outbox/util/clock.hpp"

namespace outbox::kafka {

// Kafka Connect's topic.creation.*: before the first record to a topic, the topic is created
// with its group's partitions, replication factor and configs (CreateTopics; one that exists
// already is left as it is), and the router waits until the cluster's metadata has it.
class TopicCreator {
public:
    TopicCreator(const config::TopicCreation& creation, const Clock& clock) : rules_(creation), clock_(clock) {}

    bool enabled() const { return rules_.enabled(); }
    // Throws DefiniteError naming the topic and group when Kafka refuses to create it, and
    // TransientError when the cluster does not answer in time.
    void ensure(KafkaProducer& producer, std::string_view topic);

private:
    TopicCreationRules rules_;
    const Clock& clock_;
    std::set<std::string, std::less<>> ready_;
};

}  // namespace outbox::kafka
