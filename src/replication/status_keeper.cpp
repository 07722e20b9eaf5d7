#include "outbox/replication/status_keeper.hpp"

#include <exception>
#include <string>

#include "outbox/util/log.hpp"

namespace outbox::replication {

StatusKeeper::StatusKeeper(ReplicationStream& stream, Lsn position, std::chrono::milliseconds interval)
    : thread_([this, &stream, position, interval] { run(stream, position, interval); }) {}

StatusKeeper::~StatusKeeper() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void StatusKeeper::run(ReplicationStream& stream, Lsn position, std::chrono::milliseconds interval) {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
        try {
            stream.send_status_update(position, position, false);
            stream.flush_output();
        } catch (const std::exception& e) {
            log::debug(std::string("status updates during set-up stopped: ") + e.what());
            return;
        }
    }
}

}  // namespace outbox::replication
