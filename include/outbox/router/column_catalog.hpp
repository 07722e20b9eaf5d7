#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/pg_type_resolver.hpp"
#include "outbox/router/outbox_table.hpp"

namespace outbox::router {

// What pgoutput's RELATION does not say about a column and Debezium's Connect schema does:
// NOT NULL (or a NOT NULL domain) and the default expression (pg_get_expr of pg_attrdef).
struct CatalogColumn {
    std::string name;
    bool not_null = false;
    std::optional<std::string> default_expression;
    // A domain or an array: Debezium looks a default's parser up by the column's type name, and
    // has none for those (its schema then has no default).
    bool domain_or_array = false;
};

// Reads a table's columns from the catalog by the RELATION's relid (the name is for messages);
// set by the pipeline and replay, and called on every RELATION (as Debezium re-reads its
// metadata) where JsonConverter writes schemas or message.key.columns names the table's key.
using ColumnCatalog = std::function<std::vector<CatalogColumn>(std::uint32_t relid, const config::TableName&)>;

// Reads the pg_type rows that explain a table's column types by the RELATION's relid: every
// column type's row, and recursively the rows of the types they are built on (a domain's base
// type, an array's element type). Set by the pipeline and replay; called on a RELATION with a
// column of a type only the catalog explains (a domain, an extension's type, an enum), whatever
// the converters, because the type decides each value.
using TypeCatalog = std::function<std::vector<CatalogType>(std::uint32_t relid, const config::TableName&)>;

// A default expression as Debezium's PostgresDefaultValueConverter gives it to the schema: a
// literal ('abc'::text, 42, true) as the column's value; a function call (now(),
// gen_random_uuid(), nextval(...)) as the type's placeholder (the epoch, the zero uuid, 0, "");
// nullopt where Debezium gives none (NULL, or a type it does not parse).
std::optional<Value> default_value(const ColumnType& type, const std::string& expression,
                                  const ConnectValueWriter& values);
// The same default as the column's PostgreSQL text.
std::optional<std::string> default_text(const ColumnType& type, const std::string& expression,
                                        const ConnectValueWriter& values);

// Sets each bound column's optional flag and default from the catalog's rows (a column the
// catalog does not list stays optional without a default, as Debezium leaves it), and what a
// NOT NULL key column is where an old key lacks it.
void describe_columns(OutboxTable& table, const std::vector<CatalogColumn>& catalog, const ConnectValueWriter& values);

}  // namespace outbox::router
