#pragma once

#include <chrono>
#include <string>

#include "outbox/replication/pg_connection.hpp"

namespace outbox::replication {

// A PgConnection wait that ends at `deadline`: past it, TransientError naming `what` and the limit.
// For one-shot connections with nobody to stop them (--check): a server that accepts the
// connection and then says nothing must fail the check, not hang it.
PgConnection::Wait deadline_wait(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds limit,
                                 std::string what);

}  // namespace outbox::replication
