#include "outbox/replication/heartbeat.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::replication {

Heartbeat::Heartbeat(std::string conninfo, std::string query, std::chrono::milliseconds interval)
    : conninfo_(std::move(conninfo)), query_(std::move(query)), interval_(interval),
      stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!stop_fd_.valid()) throw DefiniteError(std::string("heartbeat: eventfd: ") + std::strerror(errno));
    thread_ = std::thread([this] { run(); });
}

Heartbeat::~Heartbeat() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    // Ends a wait on the database too: an unreachable host or a hung server would otherwise hold
    // the shutdown for as long as the network takes to give up.
    const std::uint64_t one = 1;
    (void)!write(stop_fd_.get(), &one, sizeof one);
    thread_.join();
}

bool Heartbeat::wait_for(int socket, bool for_write) const {
    pollfd fds[2] = {{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {stop_fd_.get(), POLLIN, 0}};
    while (poll(fds, 2, -1) < 0)
        if (errno != EINTR) return false;
    return fds[1].revents == 0;
}

void Heartbeat::run() {
    std::unique_ptr<PgConnection> connection;
    const PgConnection::Wait wait = [this](int socket, bool for_write) { return wait_for(socket, for_write); };
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
        lock.unlock();
        try {
            if (!connection) connection = std::make_unique<PgConnection>(conninfo_, PgConnection::Mode::sql, wait);
            connection->exec(query_, "heartbeat.action.query");
        } catch (const std::exception& e) {
            // The stream has its own reconnect logic; a failed heartbeat only delays WAL release.
            lock.lock();
            if (!stopping_) log::warn(log::mask_conninfo(std::string("heartbeat: ") + e.what()));
            lock.unlock();
            connection.reset();
        }
        lock.lock();
    }
}

}  // namespace outbox::replication
