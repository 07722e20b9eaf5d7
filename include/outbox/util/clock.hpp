#pragma once

#include <chrono>
#include <cstdint>

namespace outbox {

// The time the pipeline's decisions read: the machine's clocks in production, a simulated one
// under tests/simulation. Deadlines and intervals use the steady clock; record timestamps and
// report times the wall clock.
class Clock {
public:
    using time_point = std::chrono::steady_clock::time_point;

    virtual ~Clock() = default;
    virtual time_point now() const = 0;
    // Milliseconds since the Unix epoch.
    virtual std::int64_t unix_ms() const = 0;
};

// The machine's clocks.
class SystemClock final : public Clock {
public:
    time_point now() const override { return std::chrono::steady_clock::now(); }
    std::int64_t unix_ms() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
    static const SystemClock& instance() {
        static const SystemClock clock;
        return clock;
    }
};

}  // namespace outbox
