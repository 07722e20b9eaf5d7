#pragma once

#include <chrono>

#include "outbox/util/clock.hpp"

namespace outbox::simulation {

// Simulated time: moves only when the simulation says so (a step, or a wait inside a port).
class SimClock final : public Clock {
public:
    time_point now() const override { return now_; }
    std::int64_t unix_ms() const override {
        return kEpochMs + std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch()).count();
    }
    void advance(std::chrono::microseconds by) { now_ += by; }
    void advance_to(time_point at) {
        if (at > now_) now_ = at;
    }
    std::int64_t millis() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch()).count();
    }

private:
    static constexpr std::int64_t kEpochMs = 1'780'000'000'000;
    time_point now_{};
};

}  // namespace outbox::simulation
