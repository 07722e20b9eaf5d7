#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace outbox::observability {

// The instruments are written by the pipeline thread and read by the HTTP thread. Every access
// is a relaxed atomic: a scrape needs each value to be whole, not ordered with other memory,
// and an increment must cost no more than one uncontended atomic add.

// A count that only goes up.
class Counter {
public:
    Counter() = default;
    Counter(const Counter&) = delete;
    Counter& operator=(const Counter&) = delete;

    void add(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> value_{0};
};

// A value that goes up and down: a position, a size, a flag.
class Gauge {
public:
    Gauge() = default;
    Gauge(const Gauge&) = delete;
    Gauge& operator=(const Gauge&) = delete;

    void set(std::int64_t value) noexcept { value_.store(value, std::memory_order_relaxed); }
    void add(std::int64_t delta) noexcept { value_.fetch_add(delta, std::memory_order_relaxed); }
    std::int64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::int64_t> value_{0};
};

// Observations counted into fixed buckets, Prometheus style.
class Histogram {
public:
    // `upper_bounds`: finite, strictly ascending; the +Inf bucket is implied. Throws
    // std::invalid_argument otherwise.
    explicit Histogram(std::vector<double> upper_bounds);
    Histogram(const Histogram&) = delete;
    Histogram& operator=(const Histogram&) = delete;

    // NaN is ignored; anything above the last bound lands in +Inf.
    void observe(double value) noexcept;

    struct Snapshot {
        std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf (= the count)
        double sum = 0;
    };
    Snapshot snapshot() const;
    const std::vector<double>& upper_bounds() const { return bounds_; }

private:
    std::vector<double> bounds_;
    // Per bucket, not cumulative, so observe() touches one bucket; snapshot() accumulates.
    std::vector<std::atomic<std::uint64_t>> buckets_;
    std::atomic<double> sum_{0};
};

}  // namespace outbox::observability
