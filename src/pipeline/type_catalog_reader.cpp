#include "outbox/pipeline/type_catalog_reader.hpp"

#include "outbox/pipeline/catalog_query.hpp"

namespace outbox::pipeline {

std::vector<connect::CatalogType> read_type_catalog(const std::string& conninfo, std::uint32_t relid,
                                                    const config::TableName& table) {
    // A domain's typcategory is its base type's ('A' over an array): typtype decides first.
    const auto result = query_catalog(
        conninfo, "outbox-router-type-catalog", "reading the column types of " + table.qualified(),
        "WITH RECURSIVE used(oid) AS ("
        " SELECT a.atttypid FROM pg_catalog.pg_attribute a"
        " WHERE a.attrelid = " + std::to_string(relid) + "::oid AND a.attnum > 0 AND NOT a.attisdropped"
        " UNION"
        " SELECT CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.typelem END"
        " FROM used JOIN pg_catalog.pg_type t ON t.oid = used.oid"
        " WHERE (t.typtype = 'd' AND t.typbasetype <> 0) OR (t.typcategory = 'A' AND t.typelem <> 0))"
        " SELECT t.oid::bigint, t.typname, n.nspname, t.typtype, t.typcategory, t.typbasetype::bigint, t.typtypmod,"
        " t.typelem::bigint,"
        " (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum e"
        " WHERE e.enumtypid = t.oid)"
        " FROM used JOIN pg_catalog.pg_type t ON t.oid = used.oid"
        " JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace");
    const auto text = [&](int row, int column) { return std::string(PQgetvalue(result.get(), row, column)); };
    const auto oid = [&](int row, int column) { return static_cast<std::uint32_t>(std::stoul(text(row, column))); };
    std::vector<connect::CatalogType> types;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        connect::CatalogType type;
        type.oid = oid(row, 0);
        type.name = text(row, 1);
        type.schema = text(row, 2);
        type.type_kind = text(row, 3).front();
        type.category = text(row, 4).front();
        type.base_oid = oid(row, 5);
        type.base_modifier = static_cast<std::int32_t>(std::stol(text(row, 6)));
        type.element_oid = oid(row, 7);
        type.enum_values = text(row, 8);  // NULL (empty) but for an enum with labels
        types.push_back(std::move(type));
    }
    return types;
}

}  // namespace outbox::pipeline
