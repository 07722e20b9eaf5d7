#pragma once

#include <chrono>
#include <cstddef>

namespace outbox::replication {

// How long the replication reader waits between two socket reads.
//
// A reader faster than the walsender is woken for nearly every message it sends: a poll(), a
// recv() and a context switch per message on the reader's side, a wake-up and a small segment per
// message on the walsender's. Waiting a little between reads lets a batch accumulate instead, and
// both sides spend less CPU (docs/benchmarks.md, "Read pacing").
//
// The walsender is cheapest, and fastest, when its reader stays a little behind it: every read
// fills libpq's 16 KiB input buffer and data stays queued in the socket. A reader that drains the
// socket nearly doubles the walsender's CPU, and the walsender then sends slower, so reads that
// were full at an interval come back short at it (docs/benchmarks-history.md, "Eighth round").
//
// So, while the router drains a backlog:
// - A read of less than kSmallRead lengthens the wait by a quarter: the walsender is slower than
//   the reader.
// - A read of at least kFullRead shortens it by a quarter, since the buffer is about to cap the
//   rate, but not below a floor. The floor is the wait at which reads turned full again after
//   at least kTrickleReadsForFloor short ones that each brought kTrickleRead or more: the walsender
//   was sending steadily, only slower than the reader. Holding that wait keeps the reader just
//   behind. Shortening past it drains the socket and tips the walsender back into its slow state.
// - A short read of less than kTrickleRead does not count towards a floor. Large transactions
//   arrive in bursts with silent gaps between them (the walsender sends a transaction only once it
//   has decoded its commit), and a floor set at the end of a gap would slow the next burst.
// - The floor is forgotten by an eighth every kForgetFloorAfter full reads, for a backlog whose
//   shape changes, and it is never above kMaxFloor: longer waits cap the rate at the buffer's size.
// Caught up, the wait is the minimum: there every microsecond of it is latency.
class ReadPacer {
public:
    static constexpr std::chrono::microseconds kMinInterval{50};
    static constexpr std::chrono::microseconds kMaxInterval{1000};
    static constexpr std::chrono::microseconds kMaxFloor{200};
    static constexpr std::size_t kFullRead = 15 * 1024;
    static constexpr std::size_t kSmallRead = 12 * 1024;
    static constexpr std::size_t kTrickleRead = 2 * 1024;
    static constexpr unsigned kTrickleReadsForFloor = 3;
    static constexpr unsigned kForgetFloorAfter = 64;

    // After the frames of one read were taken: `bytes` is what the read brought, `draining_backlog`
    // whether the router is behind the server.
    void after_read(std::size_t bytes, bool draining_backlog);

    // One read over GSSAPI encryption is several: libpq's PQconsumeInput takes one packet per
    // call, and the walsender sends every message as a packet of its own, so a single call would
    // bring one message and the pacer would take a fast walsender for a slow one. The read goes
    // on while the socket holds more (`queued`, bytes not yet read) and `consumed` (socket bytes
    // taken so far) is below kEncryptedRead, a plain read's buffer plus room for the packets'
    // overhead.
    static constexpr std::size_t kEncryptedRead = 20 * 1024;
    static bool read_again(std::size_t consumed, std::size_t queued) {
        return queued > 0 && consumed < kEncryptedRead;
    }

    std::chrono::microseconds interval() const { return interval_; }
    std::chrono::microseconds floor() const { return floor_; }

private:
    std::chrono::microseconds interval_ = kMinInterval;
    std::chrono::microseconds floor_ = kMinInterval;
    unsigned trickle_reads_in_row_ = 0;
    unsigned full_reads_since_floor_ = 0;
};

}  // namespace outbox::replication
