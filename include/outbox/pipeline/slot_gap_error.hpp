#pragma once

#include "outbox/util/errors.hpp"

namespace outbox::pipeline {

// Exactly-once: the slot was created by this start while the offsets topic records a position
// from a slot that is gone, so transactions in between may never reach Kafka. The loop drops the
// new slot before exiting, so that a supervisor's restart meets the same gap instead of streaming
// past it.
class SlotGapError : public DefiniteError {
public:
    using DefiniteError::DefiniteError;
};

}  // namespace outbox::pipeline
