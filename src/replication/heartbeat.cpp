#include "outbox/replication/heartbeat.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "outbox/replication/connection_settings.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::replication {
namespace {

// A heartbeat is a short write; one stuck behind another session's lock or a slow server is
// given up (and reported), and its statement ends on the server too rather than running later.
constexpr int kLockTimeoutMs = 2000;
constexpr int kStatementTimeoutMs = 10000;
// Beyond the statement timeout the server is not answering at all.
constexpr auto kAnswerLimit = std::chrono::milliseconds(kStatementTimeoutMs + 5000);

}  // namespace

Heartbeat::Heartbeat(std::string conninfo, std::string query, std::chrono::milliseconds interval)
    : conninfo_(side_conninfo(conninfo, "outbox-router-heartbeat")),
      query_(std::move(query)),
      stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      ticker_(interval, [this] { beat(); }, Ticker::FirstRun::after_interval) {
    if (!stop_fd_.valid()) throw DefiniteError(std::string("heartbeat: eventfd: ") + std::strerror(errno));
}

Heartbeat::~Heartbeat() {
    // Ends a wait on the database too: an unreachable host or a hung server would otherwise hold
    // the shutdown for as long as the network takes to give up. The ticker stops next.
    const std::uint64_t one = 1;
    (void)!write(stop_fd_.get(), &one, sizeof one);
}

bool Heartbeat::wait_for(int socket, bool for_write) const {
    pollfd fds[2] = {{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {stop_fd_.get(), POLLIN, 0}};
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(answer_by_ - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            throw TransientError("no answer from the server within " + std::to_string(kAnswerLimit.count()) + " ms");
        const int ready = poll(fds, 2, static_cast<int>(left.count()));
        if (ready > 0) return fds[1].revents == 0;
        if (ready < 0 && errno != EINTR) return false;
    }
}

void Heartbeat::beat() {
    try {
        answer_by_ = std::chrono::steady_clock::now() + kAnswerLimit;
        if (!connection_) {
            connection_ = std::make_unique<PgConnection>(
                conninfo_, PgConnection::Mode::sql, [this](int socket, bool for_write) { return wait_for(socket, for_write); });
            connection_->exec("SET lock_timeout = " + std::to_string(kLockTimeoutMs) +
                                  "; SET statement_timeout = " + std::to_string(kStatementTimeoutMs),
                              "heartbeat settings");
        }
        connection_->exec(query_, "heartbeat.action.query");
    } catch (const std::exception& e) {
        // The stream has its own reconnect logic; a failed heartbeat only delays WAL release.
        pollfd stop{stop_fd_.get(), POLLIN, 0};
        if (poll(&stop, 1, 0) == 0) log::warn(log::mask_conninfo(std::string("heartbeat: ") + e.what()));
        connection_.reset();
    }
}

}  // namespace outbox::replication
