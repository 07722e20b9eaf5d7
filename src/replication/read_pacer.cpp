#include "outbox/replication/read_pacer.hpp"

#include <algorithm>

namespace outbox::replication {

void ReadPacer::after_read(std::size_t bytes, bool draining_backlog) {
    if (!draining_backlog) {
        interval_ = floor_ = kMinInterval;
        trickle_reads_in_row_ = full_reads_since_floor_ = 0;
    } else if (bytes >= kFullRead) {
        if (trickle_reads_in_row_ >= kTrickleReadsForFloor) {
            floor_ = std::min(kMaxFloor, interval_);
            full_reads_since_floor_ = 0;
        }
        trickle_reads_in_row_ = 0;
        if (++full_reads_since_floor_ % kForgetFloorAfter == 0) floor_ = std::max(kMinInterval, floor_ * 7 / 8);
        interval_ = std::max(floor_, interval_ * 3 / 4);
    } else if (bytes < kSmallRead) {
        trickle_reads_in_row_ = bytes >= kTrickleRead ? trickle_reads_in_row_ + 1 : 0;
        interval_ = std::min(kMaxInterval, interval_ * 5 / 4);
    }
}

}  // namespace outbox::replication
