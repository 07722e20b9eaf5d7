#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/connect/pg_type_resolver.hpp"

namespace outbox::pipeline {

// The pg_type rows of a table's column types and, recursively, of the types they are built on
// (a domain's base type, an array's element type), read by the RELATION's relid in one query over
// a short side connection (application_name outbox-router-type-catalog), bounded as
// query_catalog's (catalog_query.hpp). A table dropped since the WAL being decoded has no rows:
// its columns of non-builtin types stay text. Throws TransientError as query_catalog does.
std::vector<connect::CatalogType> read_type_catalog(const std::string& conninfo, std::uint32_t relid,
                                                    const config::TableName& table);

}  // namespace outbox::pipeline
