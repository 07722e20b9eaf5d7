#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/router/column_catalog.hpp"

namespace outbox::pipeline {

// A table's columns from pg_attribute and pg_attrdef over a short side connection
// (application_name outbox-router-column-catalog): NOT NULL (a NOT NULL domain included, as
// pgjdbc reports it to Debezium) and the default expression. Looked up by the RELATION's relid,
// so a table renamed since the WAL being decoded is still the one read; a table dropped since has
// no rows here: its columns stay optional without defaults, as Debezium leaves columns its
// metadata lacks. It runs on the loop's thread, so every wait is bounded: a lock on the table
// (pg_get_expr takes one before PostgreSQL 16) is waited for up to kCatalogLockTimeoutMs, the
// statement up to kCatalogStatementTimeoutMs, and a shutdown request ends any wait at once. Throws
// TransientError when the server cannot be reached, the table stays locked, or a stop was asked.
std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, std::uint32_t relid,
                                                       const config::TableName& table);

inline constexpr int kCatalogLockTimeoutMs = 2000;
inline constexpr int kCatalogStatementTimeoutMs = 10000;

}  // namespace outbox::pipeline
