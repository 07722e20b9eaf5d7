#include "outbox/pipeline/caught_up_flush.hpp"

#include <algorithm>

namespace outbox::pipeline {

void CaughtUpFlush::reported(Clock::time_point now) {
    if (++reported_ == flushed_through_) round_trip_ = now - round_started_;
}

bool CaughtUpFlush::due(Clock::time_point now) const {
    if (!lingering_) return false;
    return reported_ >= flushed_through_ || now >= last_flush_ + std::max<Clock::duration>(kRecheck, 2 * round_trip_);
}

void CaughtUpFlush::flushing(Clock::time_point now) {
    // A forced flush extends the round it is in rather than starting one, or the round trip would
    // be measured from it and come out short.
    if (reported_ >= flushed_through_) round_started_ = now;
    last_flush_ = now;
    flushed_through_ = handed_over_;
}

}  // namespace outbox::pipeline
