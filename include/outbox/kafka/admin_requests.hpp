#pragma once

#include <atomic>
#include <chrono>
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
// waits for the controller's answer up to `create_timeout`.
//
// Destroying this object cancels its requests: each thread ends within a second or two (a lookup
// at the end of its current metadata attempt, CreateTopics at once), destroys its client and
// answers no one. wait_for_all() bounds how long the process waits for such threads before it
// exits, so that none of them runs into exit-time clean-up (static destructors, OpenSSL's).
class AdminRequests {
public:
    static constexpr std::chrono::milliseconds kCreateTimeout{30000};

    explicit AdminRequests(ConfPtr conf, std::chrono::milliseconds create_timeout = kCreateTimeout)
        : conf_(std::move(conf)), create_timeout_(create_timeout) {}
    ~AdminRequests();
    AdminRequests(const AdminRequests&) = delete;
    AdminRequests& operator=(const AdminRequests&) = delete;

    void look_up(std::string_view topic);
    void create(std::string_view topic, int partitions, int replication_factor,
                const std::vector<std::pair<std::string, std::string>>& configs);
    std::optional<KafkaProducer::AdminAnswer> answer(std::string_view topic);

    // Waits until no request thread of any AdminRequests runs, at most `bound`; whether none does.
    static bool wait_for_all(std::chrono::milliseconds bound);

private:
    // What a request's thread shares with its requester.
    struct Slot {
        std::atomic<bool> cancelled{false};
        std::mutex mutex;
        std::optional<KafkaProducer::AdminAnswer> answer;  // guarded by mutex
    };
    template <typename Request>
    void start(std::string_view topic, Request request);

    ConfPtr conf_;
    std::chrono::milliseconds create_timeout_;
    std::map<std::string, std::shared_ptr<Slot>, std::less<>> slots_;
};

}  // namespace outbox::kafka
