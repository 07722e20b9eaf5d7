#pragma once

#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/router/column_catalog.hpp"

namespace outbox::pipeline {

// A table's columns from pg_attribute and pg_attrdef over a short side connection: NOT NULL (a
// NOT NULL domain included, as pgjdbc reports it to Debezium) and the default expression.
// Throws TransientError when the server cannot be reached, DefiniteError when the table is gone.
std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, const config::TableName& table);

}  // namespace outbox::pipeline
