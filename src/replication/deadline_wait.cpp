#include "outbox/replication/deadline_wait.hpp"

#include <poll.h>

#include <cerrno>

#include "outbox/util/errors.hpp"

namespace outbox::replication {

PgConnection::Wait deadline_wait(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds limit,
                                 std::string what) {
    return [deadline, limit, what = std::move(what)](int socket, bool for_write) {
        pollfd entry{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
        for (;;) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0)
                throw TransientError("postgres: no answer within " + std::to_string(limit.count()) + " ms while " + what);
            const int ready = poll(&entry, 1, static_cast<int>(left.count()));
            if (ready > 0 || (ready < 0 && errno != EINTR)) return true;  // the libpq call that follows reports an error
        }
    };
}

}  // namespace outbox::replication
