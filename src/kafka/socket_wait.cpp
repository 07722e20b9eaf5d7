#include "outbox/kafka/socket_wait.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace outbox::kafka {
namespace {

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    return static_cast<int>(std::max<long long>(0, left));
}

}  // namespace

bool wait_for_socket(int fd, short events, std::chrono::steady_clock::time_point deadline, int cancel_fd) {
    pollfd entries[2] = {{fd, events, 0}, {cancel_fd, POLLIN, 0}};
    int ready;
    do ready = ::poll(entries, 2, remaining_ms(deadline));
    while (ready < 0 && errno == EINTR);
    return ready > 0 && entries[1].revents == 0 && entries[0].revents != 0;
}

}  // namespace outbox::kafka
