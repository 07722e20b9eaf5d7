#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "outbox/replication/replication_stream.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::replication {

// Keeps a started stream's walsender fed while the owner's thread blocks elsewhere (setting up
// Kafka transactions can take longer than wal_sender_timeout): sends a status update for a fixed
// position every `interval` on a thread of its own, until destroyed. The owner must not touch
// the stream while a keeper lives. A failed send ends the keeper quietly; the owner's next use
// of the stream finds the lost connection.
class StatusKeeper {
public:
    StatusKeeper(ReplicationStream& stream, Lsn position, std::chrono::milliseconds interval);
    ~StatusKeeper();
    StatusKeeper(const StatusKeeper&) = delete;
    StatusKeeper& operator=(const StatusKeeper&) = delete;

private:
    void run(ReplicationStream& stream, Lsn position, std::chrono::milliseconds interval);

    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace outbox::replication
