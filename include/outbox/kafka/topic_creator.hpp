#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/kafka/topic_creation_rules.hpp"
#include "outbox/util/clock.hpp"

namespace outbox::kafka {

// Kafka Connect's topic.creation.*: before the first record to a topic, the topic is looked up
// and, when missing, created with its group's partitions, replication factor and configs; then
// the router waits until the cluster's metadata has it. As Kafka Connect does, a topic that
// exists is never asked for (a principal may write a topic without the right to create topics,
// and Kafka checks that right before existence), and a CreateTopics refused for authorization or
// an unsupported version is taken to mean "assume it exists". Nothing here waits: each call moves
// the topic's requests on and says whether records may go to it yet.
class TopicCreator {
public:
    TopicCreator(const config::TopicCreation& creation, const Clock& clock) : rules_(creation), clock_(clock) {}

    bool enabled() const { return rules_.enabled(); }
    // Whether records may go to `topic` now (always, with topic creation off). Throws
    // DefiniteError naming the topic and group when Kafka refuses to create it.
    bool ready(KafkaProducer& producer, std::string_view topic);
    // A new producer: the requests of the previous one will not be answered.
    void producer_replaced();

private:
    struct Pending {
        enum class Step { look_up, create, confirm } step = Step::look_up;
        bool asked = false;
        Clock::time_point next_request{};
        std::chrono::milliseconds retry{100};
    };
    void ask(KafkaProducer& producer, std::string_view topic, Pending& pending);
    bool answered(std::string_view topic, Pending& pending, const KafkaProducer::AdminAnswer& answer);
    void retry_later(Pending& pending);

    TopicCreationRules rules_;
    const Clock& clock_;
    std::set<std::string, std::less<>> ready_;
    std::map<std::string, Pending, std::less<>> pending_;
};

}  // namespace outbox::kafka
