#pragma once

#include <stdexcept>

namespace outbox::pipeline {

// The producer is beyond repair (librdkafka's fatal error): replace it and replay from the slot.
class ProducerFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace outbox::pipeline
