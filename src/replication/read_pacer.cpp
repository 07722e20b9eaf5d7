#include "outbox/replication/read_pacer.hpp"

#include <algorithm>

namespace outbox::replication {

void ReadPacer::after_read(std::size_t bytes, bool draining_backlog) {
    if (!draining_backlog)
        interval_ = kMinInterval;
    else if (bytes >= kFullRead)
        interval_ = std::max(kMinInterval, interval_ * 3 / 4);
    else if (bytes < kSmallRead)
        interval_ = std::min(kMaxInterval, interval_ * 5 / 4);
}

}  // namespace outbox::replication
