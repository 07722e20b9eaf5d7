#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/file_descriptor.hpp"
#include "outbox/util/ticker.hpp"

namespace outbox::replication {

// Debezium's heartbeat.action.query: runs a statement on the source database at a fixed
// interval, on a connection of its own and in a thread of its own (a Ticker) so a slow or
// unreachable database never stalls the stream. The default statement writes a transactional
// logical decoding message, which the slot decodes as an (empty) transaction that the router
// confirms: the slot advances even when the only WAL on the server comes from other databases.
// Its waits on the database end when it is destroyed, so a hung server never holds up a shutdown;
// lock_timeout and statement_timeout end the statement on the server as well, so one given up on
// (a lock held by a migration) does not run after the router has gone.
class Heartbeat {
public:
    Heartbeat(std::string conninfo, std::string query, std::chrono::milliseconds interval);
    ~Heartbeat();
    Heartbeat(const Heartbeat&) = delete;
    Heartbeat& operator=(const Heartbeat&) = delete;

private:
    void beat();
    bool wait_for(int socket, bool for_write) const;

    const std::string conninfo_;
    const std::string query_;
    std::chrono::steady_clock::time_point answer_by_;  // the running beat's last moment to wait
    FileDescriptor stop_fd_;                   // an eventfd, written once on destruction
    std::unique_ptr<PgConnection> connection_;  // the ticker's thread's alone
    Ticker ticker_;                            // last: its thread uses everything above
};

}  // namespace outbox::replication
