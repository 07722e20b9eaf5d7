#include "outbox/pipeline/column_catalog_reader.hpp"

#include "outbox/pipeline/catalog_query.hpp"

namespace outbox::pipeline {

std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, std::uint32_t relid,
                                                       const config::TableName& table) {
    const auto result = query_catalog(
        conninfo, "outbox-router-column-catalog", "reading the columns of " + table.qualified(),
        "SELECT a.attname, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), pg_get_expr(d.adbin, d.adrelid), "
        "t.typtype = 'd' OR t.typcategory = 'A' "
        "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
        "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
        "WHERE a.attrelid = " + std::to_string(relid) + "::oid AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum");
    std::vector<router::CatalogColumn> columns;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        router::CatalogColumn column{PQgetvalue(result.get(), row, 0), PQgetvalue(result.get(), row, 1)[0] == 't', {}};
        if (!PQgetisnull(result.get(), row, 2)) column.default_expression = PQgetvalue(result.get(), row, 2);
        column.domain_or_array = PQgetvalue(result.get(), row, 3)[0] == 't';
        columns.push_back(std::move(column));
    }
    return columns;
}

}  // namespace outbox::pipeline
