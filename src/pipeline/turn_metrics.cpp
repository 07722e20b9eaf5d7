#include "outbox/pipeline/turn_metrics.hpp"

namespace outbox::pipeline {
namespace {

// Beyond this many distinct counters in a turn (many topics), pending counts are applied early
// rather than searched through.
constexpr std::size_t kMaxPendingCounters = 32;

}  // namespace

void TurnMetrics::count(observability::Counter& counter) {
    if (last_counted_ < counts_.size() && counts_[last_counted_].first == &counter) {
        ++counts_[last_counted_].second;
        return;
    }
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i].first == &counter) {
            ++counts_[i].second;
            last_counted_ = i;
            return;
        }
    }
    if (counts_.size() == kMaxPendingCounters) {
        apply_counts();
        counts_.clear();
    }
    counts_.emplace_back(&counter, 1);
    last_counted_ = counts_.size() - 1;
}

void TurnMetrics::commit_to_ack(double seconds) {
    if (latency_count_ != 0 && seconds != latency_seconds_) {
        metrics_.commit_to_ack_seconds.observe(latency_seconds_, latency_count_);
        latency_count_ = 0;
    }
    latency_seconds_ = seconds;
    ++latency_count_;
}

void TurnMetrics::apply() {
    if (in_flight_messages_ != 0) metrics_.in_flight_messages.add(std::exchange(in_flight_messages_, 0));
    if (in_flight_bytes_ != 0) metrics_.in_flight_bytes.add(std::exchange(in_flight_bytes_, 0));
    if (latency_count_ != 0) metrics_.commit_to_ack_seconds.observe(latency_seconds_, std::exchange(latency_count_, 0));
    apply_counts();
}

void TurnMetrics::apply_counts() {
    for (auto& [counter, pending] : counts_)
        if (pending != 0) counter->add(std::exchange(pending, 0));
}

void TurnMetrics::clear_in_flight() {
    in_flight_messages_ = 0;
    in_flight_bytes_ = 0;
    metrics_.in_flight_messages.set(0);
    metrics_.in_flight_bytes.set(0);
}

}  // namespace outbox::pipeline
