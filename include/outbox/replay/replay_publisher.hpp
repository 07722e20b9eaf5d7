#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/kafka/producer.hpp"
#include "outbox/kafka/record.hpp"

namespace outbox::replay {

// The Kafka side of `replay`: a producer of its own, never transactional (the router's
// transactional.id would fence the running router, and records outside a transaction are
// refused by a transactional producer), holding no more unacknowledged records than the stream
// does (max.inflight.messages / max.inflight.bytes) and waiting, as the stream does, for room in
// librdkafka's queue while Kafka is slow or paused. `stopping` (a shutdown request) ends every
// wait; so does a delivery that failed or expired (message.timeout.ms). A long wait is told to
// `note` every 10 s.
class ReplayPublisher {
public:
    ReplayPublisher(const config::Config& config, std::function<bool()> stopping,
                    std::function<void(const std::string&)> note);
    ReplayPublisher(const ReplayPublisher&) = delete;
    ReplayPublisher& operator=(const ReplayPublisher&) = delete;

    // Hands `record` to librdkafka, first waiting for room. Throws DefiniteError for a record
    // Kafka refuses or a delivery that failed, TransientError when stopped.
    void publish(const kafka::Record& record, const std::string& row_description);
    // Waits until every record handed over is acknowledged; throws as publish().
    void finish();

    std::size_t handed_over() const { return handed_over_; }
    std::size_t acknowledged() const { return acknowledged_; }

private:
    bool full() const;
    void throw_if_stopped(std::string_view waiting_for) const;
    void note_wait(std::string_view waiting_for);
    void serve_waiting(std::string_view waiting_for);
    void throw_if_failed() const;

    const config::Config& config_;
    std::function<bool()> stopping_;
    std::function<void(const std::string&)> note_;
    std::optional<std::chrono::steady_clock::time_point> waiting_since_;  // of the current wait
    std::chrono::steady_clock::time_point last_note_{};
    std::size_t handed_over_ = 0;
    std::size_t acknowledged_ = 0;
    std::size_t messages_in_flight_ = 0;
    std::size_t bytes_in_flight_ = 0;
    std::string failure_;
    kafka::Producer producer_;
};

}  // namespace outbox::replay
