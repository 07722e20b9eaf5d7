#include "outbox/observability/progress_log.hpp"

#include <cstdio>

#include "outbox/util/log.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::observability {
namespace {
std::string rate(std::uint64_t from, std::uint64_t to, double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f/s", seconds > 0 ? static_cast<double>(to - from) / seconds : 0.0);
    return text;
}
}  // namespace

ProgressSample ProgressSample::read(const Metrics& metrics) {
    ProgressSample sample;
    sample.at = std::chrono::steady_clock::now();
    sample.received = metrics.events_received.total();
    sample.published = metrics.events_published.total();
    sample.confirmed_lsn = metrics.confirmed_lsn.value();
    if (metrics.server_wal_lsn.value() != 0) sample.lag_bytes = metrics.lag_bytes();
    sample.in_flight_messages = metrics.in_flight_messages.value();
    sample.in_flight_bytes = metrics.in_flight_bytes.value();
    sample.streaming = metrics.health.streaming();
    return sample;
}

std::string progress_line(const ProgressSample& before, const ProgressSample& now) {
    const double seconds = std::chrono::duration<double>(now.at - before.at).count();
    const std::string lag = now.lag_bytes ? std::to_string(*now.lag_bytes) + " bytes" : "unknown";
    std::string line = "progress: " + std::to_string(now.received) + " events received (" +
                       rate(before.received, now.received, seconds) + "), " + std::to_string(now.published) +
                       " published (" + rate(before.published, now.published, seconds) + "), confirmed " +
                       format_lsn(static_cast<Lsn>(now.confirmed_lsn)) + ", lag " + lag + ", " +
                       std::to_string(now.in_flight_messages) + " in flight (" +
                       std::to_string(now.in_flight_bytes) + " bytes)";
    if (!now.streaming) line += ", not streaming";
    return line;
}

ProgressLog::ProgressLog(const Metrics& metrics, std::chrono::milliseconds interval)
    : metrics_(metrics), ticker_(interval, [this] { report(); }) {}

// The first tick only takes the baseline the rates need.
void ProgressLog::report() {
    const ProgressSample now = ProgressSample::read(metrics_);
    if (previous_) log::info(progress_line(*previous_, now));
    previous_ = now;
}

}  // namespace outbox::observability
