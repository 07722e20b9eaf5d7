#pragma once

#include <memory>
#include <string>

#include "pg_server.hpp"

namespace outbox::test {

// For tests of the replication stream on its own: a database of the shared server with the
// outbox table, a publication of it and a pgoutput slot, both named after the database.
struct OutboxSource {
    std::string db;
    std::unique_ptr<Sql> sql;  // a session on it
};
OutboxSource outbox_source(const std::string& prefix);

// INSERT of `count` outbox rows whose payload carries `pad_bytes` of padding.
std::string padded_rows_sql(int count, int pad_bytes);

}  // namespace outbox::test
