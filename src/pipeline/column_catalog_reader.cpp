#include "outbox/pipeline/column_catalog_reader.hpp"

#include "outbox/observability/slot_monitor.hpp"
#include "outbox/replication/pg_connection.hpp"

namespace outbox::pipeline {

std::vector<router::CatalogColumn> read_column_catalog(const std::string& conninfo, const config::TableName& table) {
    const replication::PgConnection connection(observability::side_connection_conninfo(conninfo),
                                               replication::PgConnection::Mode::sql);
    const std::string relation =
        connection.quote_literal(connection.quote_identifier(table.schema) + "." + connection.quote_identifier(table.name));
    const auto result = connection.exec(
        "SELECT a.attname, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), pg_get_expr(d.adbin, d.adrelid) "
        "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
        "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
        "WHERE a.attrelid = to_regclass(" + relation + ") AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
        "reading the columns of " + table.qualified());
    std::vector<router::CatalogColumn> columns;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        router::CatalogColumn column{PQgetvalue(result.get(), row, 0), PQgetvalue(result.get(), row, 1)[0] == 't', {}};
        if (!PQgetisnull(result.get(), row, 2)) column.default_expression = PQgetvalue(result.get(), row, 2);
        columns.push_back(std::move(column));
    }
    return columns;
}

}  // namespace outbox::pipeline
