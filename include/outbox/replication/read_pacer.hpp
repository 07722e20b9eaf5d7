#pragma once

#include <chrono>
#include <cstddef>

namespace outbox::replication {

// How long the replication reader waits between two socket reads.
//
// A reader faster than the walsender is woken for nearly every message it sends: a poll(), a
// recv() and a context switch per message on the reader's side, a wake-up and a small segment per
// message on the walsender's. Waiting a little between reads lets a batch accumulate instead, and
// both sides spend less CPU (docs/benchmarks.md, "Profile" and "Seventh round").
//
// The right wait depends on the walsender's pace. 50 us suits a backlog of large transactions,
// where a read then brings close to a full libpq input buffer (16 KiB); longer waits would be
// capped by that buffer. In 1-row transactions the walsender sends fewer bytes per microsecond, and
// a 50 us read brings a few KiB. There a fixed 150 us halved the walsender's CPU and cut the
// router's by 38 %, while 300 us hit the buffer's cap.
//
// So, while the router drains a backlog, the wait adapts to what each read brought. A read of at
// least kFullRead shortens it by a quarter, since the buffer is about to cap the rate. A read of
// less than kSmallRead lengthens it by a quarter. In between, it stays. Caught up, the wait is the
// minimum: there every microsecond of it is latency. Measured (docs/benchmarks.md, "Seventh
// round"): router CPU per event -21 % on 1-row transactions, no change on 1,000-row ones.
class ReadPacer {
public:
    static constexpr std::chrono::microseconds kMinInterval{50};
    static constexpr std::chrono::microseconds kMaxInterval{1000};
    static constexpr std::size_t kFullRead = 15 * 1024;
    static constexpr std::size_t kSmallRead = 12 * 1024;

    // After the frames of one read were taken: `bytes` is their size, `draining_backlog` whether
    // the router is behind the server.
    void after_read(std::size_t bytes, bool draining_backlog);

    std::chrono::microseconds interval() const { return interval_; }

private:
    std::chrono::microseconds interval_ = kMinInterval;
};

}  // namespace outbox::replication
