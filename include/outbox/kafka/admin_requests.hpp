#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "outbox/kafka/handles.hpp"
#include "outbox/kafka/kafka_producer.hpp"

namespace outbox::kafka {

// The Kafka port's admin requests for librdkafka, answered without waiting on the caller's
// thread: each runs on a thread of its own with a client of its own (made from `conf`), so that
// a slow or absent broker holds up neither the loop nor the producer's destruction. A lookup reads
// the metadata of all topics (asking for one topic lets the broker auto-create it); CreateTopics
// waits for the controller's answer up to 30 s.
class AdminRequests {
public:
    explicit AdminRequests(ConfPtr conf) : conf_(std::move(conf)) {}
    AdminRequests(const AdminRequests&) = delete;
    AdminRequests& operator=(const AdminRequests&) = delete;

    void look_up(std::string_view topic);
    void create(std::string_view topic, int partitions, int replication_factor,
                const std::vector<std::pair<std::string, std::string>>& configs);
    std::optional<KafkaProducer::AdminAnswer> answer(std::string_view topic);

private:
    struct Slot {
        std::mutex mutex;
        std::optional<KafkaProducer::AdminAnswer> answer;
    };
    template <typename Request>
    void start(std::string_view topic, Request request);

    ConfPtr conf_;
    std::map<std::string, std::shared_ptr<Slot>, std::less<>> slots_;
};

}  // namespace outbox::kafka
