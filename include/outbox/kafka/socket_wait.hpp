#pragma once

#include <chrono>

namespace outbox::kafka {

// Whether `fd` became ready for `events` (poll()'s) before the deadline and before `cancel_fd`
// (ignored when negative) became readable.
bool wait_for_socket(int fd, short events, std::chrono::steady_clock::time_point deadline, int cancel_fd);

}  // namespace outbox::kafka
