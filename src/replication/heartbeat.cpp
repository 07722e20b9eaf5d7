#include "outbox/replication/heartbeat.hpp"

#include <memory>

#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::replication {

Heartbeat::Heartbeat(std::string conninfo, std::string query, std::chrono::milliseconds interval)
    : conninfo_(std::move(conninfo)), query_(std::move(query)), interval_(interval), thread_([this] { run(); }) {}

Heartbeat::~Heartbeat() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void Heartbeat::run() {
    std::unique_ptr<PgConnection> connection;
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
        lock.unlock();
        try {
            if (!connection) connection = std::make_unique<PgConnection>(conninfo_, PgConnection::Mode::sql);
            connection->exec(query_, "heartbeat.action.query");
        } catch (const std::exception& e) {
            // The stream has its own reconnect logic; a failed heartbeat only delays WAL release.
            log::warn(log::mask_conninfo(std::string("heartbeat: ") + e.what()));
            connection.reset();
        }
        lock.lock();
    }
}

}  // namespace outbox::replication
