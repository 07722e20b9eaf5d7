#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "outbox/connect/connect_value.hpp"

namespace outbox::connect {

// One pg_type row, as the type catalog reads it for the types a table's columns use (and the
// types those are built on: a domain's base type, an array's element type, recursively).
struct CatalogType {
    std::uint32_t oid = 0;
    std::string name;                  // typname
    std::string schema;                // the typnamespace's nspname
    char type_kind = 'b';              // typtype: 'b' base, 'd' domain, 'e' enum, 'c' composite, 'r' range, ...
    char category = 'U';               // typcategory: 'A' for an array
    std::uint32_t base_oid = 0;        // typbasetype: a domain's base type
    std::int32_t base_modifier = -1;   // typtypmod: the modifier a domain declares for its base type
    std::uint32_t element_oid = 0;     // typelem: an array's element type
    std::string enum_values = {};      // an enum's labels in their sort order, joined by ','
};

// OIDs below this are PostgreSQL's own objects (FirstNormalObjectId): a type there is known by
// its OID; one at or above it (a domain, an extension's or an enum) only the catalog explains.
inline constexpr std::uint32_t kFirstNormalObjectId = 16384;

// Whether the type is explained without the catalog (PostgreSQL's own scalars and arrays).
bool builtin_type(std::uint32_t oid);

// A builtin array type's element type (1007, int4[], gives 23); 0 for any other OID.
std::uint32_t builtin_array_element(std::uint32_t array_oid);

// Resolves a column's type OID and modifier to the ColumnType the converters use, as Debezium's
// TypeRegistry does: a domain to its base type (recursively, with the domain's modifier), an array
// to an array of its resolved element type, an extension's type to its name and schema. Without
// catalog rows (the simulation, a table of builtin types only) builtin OIDs resolve by
// themselves and any other OID is text.
class PgTypeResolver {
public:
    PgTypeResolver() = default;
    explicit PgTypeResolver(const std::vector<CatalogType>& catalog);

    ColumnType resolve(std::uint32_t oid, std::int32_t modifier) const;

private:
    ColumnType resolve(std::uint32_t oid, std::int32_t modifier, int depth) const;

    std::unordered_map<std::uint32_t, CatalogType> types_;
};

}  // namespace outbox::connect
