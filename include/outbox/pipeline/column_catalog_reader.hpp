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
// metadata lacks. Its waits are bounded as query_catalog's (catalog_query.hpp): pg_get_expr takes
// a lock on the table before PostgreSQL 16. Throws TransientError as query_catalog does.
std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, std::uint32_t relid,
                                                       const config::TableName& table);

}  // namespace outbox::pipeline
