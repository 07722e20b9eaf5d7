#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "outbox/observability/metrics.hpp"

namespace outbox::pipeline {

// The pipeline thread's per-event metric updates, gathered in plain members and applied once
// per loop turn. Each was an atomic read-modify-write (tens of cycles even uncontended, the
// histogram's sum a compare-and-swap loop), about seven per event; a turn handles up to
// thousands of events. A scrape sees them at most one turn late.
class TurnMetrics {
public:
    explicit TurnMetrics(observability::Metrics& metrics) : metrics_(metrics) {}
    TurnMetrics(const TurnMetrics&) = delete;
    TurnMetrics& operator=(const TurnMetrics&) = delete;

    // A record of `bytes` (key + value) was handed to librdkafka, or its delivery was reported.
    void sent(std::size_t bytes) {
        ++in_flight_messages_;
        in_flight_bytes_ += static_cast<std::int64_t>(bytes);
    }
    void settled(std::size_t bytes) {
        --in_flight_messages_;
        in_flight_bytes_ -= static_cast<std::int64_t>(bytes);
    }
    void count(observability::Counter& counter);
    void commit_to_ack(double seconds);

    // Applies what was gathered since the last call: in-flight gauges first, so a scrape that
    // sees an event counted as published never sees it still in flight.
    void apply();
    // Nothing is in flight any more (the producer that carried it is gone).
    void clear_in_flight();

private:
    void apply_counts();

    observability::Metrics& metrics_;
    std::int64_t in_flight_messages_ = 0;
    std::int64_t in_flight_bytes_ = 0;
    // Counters touched recently with their pending counts (usually one table and a few topics).
    std::vector<std::pair<observability::Counter*, std::uint64_t>> counts_;
    std::size_t last_counted_ = 0;  // index into counts_
    // A run of equal commit-to-ack observations (a transaction's events, acknowledged together).
    double latency_seconds_ = 0;
    std::uint64_t latency_count_ = 0;
};

}  // namespace outbox::pipeline
