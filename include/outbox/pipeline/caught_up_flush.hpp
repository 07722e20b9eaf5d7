#pragma once

#include <chrono>
#include <cstdint>

namespace outbox::pipeline {

// When a caught-up router sends what librdkafka holds instead of waiting out linger.ms: like
// Nagle's algorithm, one flush at a time. Against a broker whose acknowledgement takes longer
// than a loop turn, flushing every turn sent one small request per turn, each waiting behind the
// idempotent producer's 5 requests in flight anyway (docs/benchmarks.md, "linger.ms 10 for
// backlogs"). Waiting for the previous flush's reports lets what arrives meanwhile go in one
// request. A record that waited for its topic's metadata missed its flush and would sit out
// linger.ms, so after twice the last round trip (at least kRecheck) a flush is due regardless.
// Pure: the caller says what happened and when; whether the router is caught up is its business.
class CaughtUpFlush {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kRecheck{5};

    // One record handed to librdkafka.
    void handed_over() {
        ++handed_over_;
        lingering_ = true;
    }
    // One record's delivery report arrived (dead letters are not counted).
    void reported(Clock::time_point now);
    // Records were handed over and not yet flushed through.
    bool lingering() const { return lingering_; }
    // Whether a flush should go now.
    bool due(Clock::time_point now) const;
    // A flush goes now; `sent_everything` is what librdkafka's flush said.
    void flushing(Clock::time_point now);
    void flushed(bool sent_everything) { lingering_ = !sent_everything; }
    // The producer was replaced: the records it had never report.
    void reset() { *this = CaughtUpFlush{}; }

private:
    // Records handed over and reported back, the handed-over count at the last flush, its time,
    // when the current round of flushes began, and how long the last completed round took until
    // all its records were reported.
    std::uint64_t handed_over_ = 0;
    std::uint64_t reported_ = 0;
    std::uint64_t flushed_through_ = 0;
    Clock::time_point last_flush_{};
    Clock::time_point round_started_{};
    Clock::duration round_trip_{};
    bool lingering_ = false;
};

}  // namespace outbox::pipeline
