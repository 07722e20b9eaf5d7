#pragma once

#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/router/column_catalog.hpp"

namespace outbox::pipeline {

// A table's columns from pg_attribute and pg_attrdef over a short side connection: NOT NULL (a
// NOT NULL domain included, as pgjdbc reports it to Debezium) and the default expression.
// A table dropped since the WAL being decoded has no rows here: its columns stay optional
// without defaults, as Debezium leaves columns its metadata lacks. Throws TransientError when
// the server cannot be reached.
std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, const config::TableName& table);

}  // namespace outbox::pipeline
