#pragma once

#include <string>

#include "outbox/replication/pg_connection.hpp"

namespace outbox::pipeline {

inline constexpr int kCatalogLockTimeoutMs = 2000;
inline constexpr int kCatalogStatementTimeoutMs = 10000;

// One catalog SELECT over a short side connection named `application_name`, on the loop's
// thread, so every wait is bounded: a lock is waited for up to kCatalogLockTimeoutMs, the
// statement up to kCatalogStatementTimeoutMs, and a shutdown request ends any wait at once.
// Throws TransientError when the server cannot be reached or does not answer in time, the table
// stays locked, or a stop was asked; `what` names the query in the message.
replication::PgResult query_catalog(const std::string& conninfo, const std::string& application_name,
                                    const std::string& what, const std::string& select);

}  // namespace outbox::pipeline
