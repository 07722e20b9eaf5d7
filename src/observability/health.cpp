#include "outbox/observability/health.hpp"

#include <cstdio>

namespace outbox::observability {
namespace {
std::string seconds_text(Health::Clock::duration duration) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", std::chrono::duration<double>(duration).count());
    return text;
}
}  // namespace

Health::ProbeRegistration::~ProbeRegistration() {
    if (!health_) return;
    const std::lock_guard lock(health_->probe_mutex_);
    if (health_->probe_generation_ == generation_) health_->kafka_probe_ = nullptr;
}

// Starting counts as progress: the first loop turn may follow a slow connect and slot set-up.
Health::Health(std::chrono::milliseconds stall_after)
    : stall_after_(stall_after), last_progress_(Clock::now().time_since_epoch().count()) {}

Health::ProbeRegistration Health::register_kafka_probe(KafkaProbe probe) {
    const std::lock_guard lock(probe_mutex_);
    kafka_probe_ = std::move(probe);
    return ProbeRegistration(this, ++probe_generation_);
}

void Health::set_waiting_for(std::string what) {
    const std::lock_guard lock(waiting_mutex_);
    waiting_for_ = std::move(what);
}

void Health::set_interrupted_by(std::string cause) {
    const std::lock_guard lock(waiting_mutex_);
    interrupted_by_ = std::move(cause);
}

Health::Verdict Health::liveness() const {
    const auto last = Clock::time_point(Clock::duration(last_progress_.load(std::memory_order_relaxed)));
    const auto age = Clock::now() - last;
    std::string waiting;
    {
        const std::lock_guard lock(waiting_mutex_);
        if (!waiting_for_.empty()) waiting = " (waiting for " + waiting_for_ + ")";
    }
    if (age > stall_after_)
        return {false, "main loop: no progress for " + seconds_text(age) + " s (limit " + seconds_text(stall_after_) + " s)" +
                           waiting + "\n"};
    return {true, "main loop: progressed " + seconds_text(age) + " s ago" + waiting + "\n"};
}

Health::Verdict Health::readiness() const {
    Verdict verdict{true, ""};
    if (streaming()) {
        verdict.detail += "postgres: streaming\n";
    } else {
        verdict.ok = false;
        const std::lock_guard lock(waiting_mutex_);
        verdict.detail += interrupted_by_.empty() ? "postgres: not streaming\n"
                                                  : "postgres: not streaming (" + interrupted_by_ + ")\n";
    }
    const std::lock_guard lock(probe_mutex_);
    if (!kafka_probe_) {
        verdict.ok = false;
        verdict.detail += "kafka: not checked yet\n";
        return verdict;
    }
    const std::string problem = probe_kafka();
    if (problem.empty()) {
        verdict.detail += "kafka: reachable\n";
    } else {
        verdict.ok = false;
        verdict.detail += "kafka: unreachable: " + problem + "\n";
    }
    return verdict;
}

bool Health::ready_without_waiting() const {
    if (!streaming()) return false;
    std::unique_lock lock(probe_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return kafka_answered_.load(std::memory_order_relaxed);
    return kafka_probe_ && probe_kafka().empty();
}

std::string Health::probe_kafka() const {
    std::string problem;
    try {
        problem = kafka_probe_();
    } catch (const std::exception& e) {
        problem = e.what();
    }
    kafka_answered_.store(problem.empty(), std::memory_order_relaxed);
    return problem;
}

}  // namespace outbox::observability
