#pragma once

#include "outbox/util/errors.hpp"

namespace outbox::pipeline {

// Exactly-once: the slot was created by this connection attempt while the offsets topic records
// a position from a slot that is gone, so transactions in between may never reach Kafka. The core
// has dropped the new slot, so that a supervisor's restart meets the same refusal instead of
// streaming past it.
class SlotGapError : public DefiniteError {
public:
    using DefiniteError::DefiniteError;
};

}  // namespace outbox::pipeline
