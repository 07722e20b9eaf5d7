#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "outbox/observability/metrics.hpp"
#include "outbox/util/ticker.hpp"

namespace outbox::observability {

// The figures one progress line reports, read from the metrics at one moment.
struct ProgressSample {
    std::chrono::steady_clock::time_point at;
    std::uint64_t received = 0;
    std::uint64_t published = 0;
    std::int64_t confirmed_lsn = 0;
    std::optional<std::int64_t> lag_bytes;  // nullopt: the server's position is unknown (no slot monitor)
    std::int64_t in_flight_messages = 0;
    std::int64_t in_flight_bytes = 0;
    bool streaming = false;

    static ProgressSample read(const Metrics& metrics);
};

// "progress: 1200 events received (40.0/s), 1198 published (39.9/s), confirmed 0/1A2B3C,
// lag 4096 bytes, 2 in flight (310 bytes)", rates over the time between the two samples. The lag
// needs the server's WAL position, which only the slot monitor reads: without it, "lag unknown".
std::string progress_line(const ProgressSample& before, const ProgressSample& now);

// Logs a progress line at info level every `interval`, from the metrics alone.
class ProgressLog {
public:
    ProgressLog(const Metrics& metrics, std::chrono::milliseconds interval);

private:
    void report();

    const Metrics& metrics_;
    std::optional<ProgressSample> previous_;
    Ticker ticker_;  // last: its thread uses everything above
};

}  // namespace outbox::observability
