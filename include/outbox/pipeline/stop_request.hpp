#pragma once

#include <functional>

namespace outbox::pipeline {

// Whether this process was asked to stop: SIGTERM or SIGINT in production (ShutdownSignal), the
// fault schedule under tests/simulation. The core's retry loops end on it instead of reading the
// process-wide signal, so it runs unchanged on either side.
using StopRequested = std::function<bool()>;

}  // namespace outbox::pipeline
