#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

namespace outbox::observability {

// What /healthz and /readyz answer. The pipeline thread reports progress and the streaming
// state; the HTTP thread evaluates, including a Kafka probe the pipeline registers.
class Health {
public:
    using Clock = std::chrono::steady_clock;

    // Returns an empty string when Kafka answers, otherwise why not. Runs on the HTTP thread
    // and must return within about a second (e.g. Producer::check_metadata(1000): librdkafka
    // handles are thread-safe).
    using KafkaProbe = std::function<std::string()>;

    // Unregisters its probe when destroyed, waiting for a running call to finish, so the probe
    // never outlives what it calls into. A registration replaced by a newer one unregisters nothing.
    class ProbeRegistration {
    public:
        ProbeRegistration(ProbeRegistration&& other) noexcept
            : health_(std::exchange(other.health_, nullptr)), generation_(other.generation_) {}
        ProbeRegistration(const ProbeRegistration&) = delete;
        ProbeRegistration& operator=(const ProbeRegistration&) = delete;
        ProbeRegistration& operator=(ProbeRegistration&&) = delete;
        ~ProbeRegistration();

    private:
        friend class Health;
        ProbeRegistration(Health* health, std::uint64_t generation) : health_(health), generation_(generation) {}
        Health* health_;
        std::uint64_t generation_;
    };

    struct Verdict {
        bool ok = false;
        std::string detail;  // one line per check, each ending in '\n'
    };

    // Liveness fails once the main loop has not reported progress for `stall_after`.
    explicit Health(std::chrono::milliseconds stall_after = std::chrono::seconds(10));
    Health(const Health&) = delete;
    Health& operator=(const Health&) = delete;

    // Pipeline thread: once per loop turn, including while waiting to reconnect.
    void mark_progress() noexcept {
        last_progress_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
        progress_marks_.fetch_add(1, std::memory_order_relaxed);
    }
    // How often progress was reported (the simulation checks that waits report it).
    std::uint64_t progress_marks() const noexcept { return progress_marks_.load(std::memory_order_relaxed); }
    // Pipeline thread: what a wait outside the stream loop waits for (connection set-up, the
    // exactly-once start), for /healthz; empty when nothing.
    void set_waiting_for(std::string what);
    // Pipeline thread: true once START_REPLICATION succeeded, false when the connection is gone.
    void set_streaming(bool streaming) noexcept { streaming_.store(streaming, std::memory_order_relaxed); }
    // Pipeline thread: why the last connection ended (a transient error), for /readyz while not
    // streaming; empty when nothing ended one.
    void set_interrupted_by(std::string cause);
    bool streaming() const noexcept { return streaming_.load(std::memory_order_relaxed); }

    // Replaces any earlier probe.
    [[nodiscard]] ProbeRegistration register_kafka_probe(KafkaProbe probe);

    Verdict liveness() const;
    Verdict readiness() const;  // streaming and Kafka reachable
    // readiness().ok for a metrics scrape: while a probe runs for another request, the Kafka half
    // is that probe's last answer instead of a second wait behind it.
    bool ready_without_waiting() const;

private:
    const std::chrono::milliseconds stall_after_;
    std::atomic<Clock::rep> last_progress_;
    std::atomic<std::uint64_t> progress_marks_{0};
    mutable std::mutex waiting_mutex_;
    std::string waiting_for_;
    std::string interrupted_by_;  // guarded by waiting_mutex_
    std::atomic<bool> streaming_{false};
    mutable std::mutex probe_mutex_;  // held while the probe runs: see ProbeRegistration
    KafkaProbe kafka_probe_;
    std::uint64_t probe_generation_ = 0;
    mutable std::atomic<bool> kafka_answered_{false};  // the last probe's answer

    std::string probe_kafka() const;  // with probe_mutex_ held: why Kafka does not answer, or empty
};

}  // namespace outbox::observability
