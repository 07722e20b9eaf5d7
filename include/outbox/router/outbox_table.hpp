#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"

namespace outbox::router {

// The position and type of one configured column in an outbox table's published column list.
struct BoundColumn {
    std::string name;
    std::size_t index = 0;
    std::uint32_t type_oid = 0;
};

// An outbox table as the server last described it (pgoutput RELATION), with the configured
// Debezium columns resolved to positions. Re-bound on every RELATION, because a schema change
// re-sends it.
struct OutboxTable {
    config::TableName name;
    BoundColumn id;
    BoundColumn key;
    BoundColumn payload;
    BoundColumn route_by;
};

// Resolves the configured columns. A missing one is a DefiniteError naming table and column,
// because routing without it would lose or misroute events.
OutboxTable bind_outbox_table(const config::TableName& name, const pgoutput::Relation& relation,
                              const config::OutboxSettings& settings);

// Same check against a plain list of column names (as read from the catalog at start-up).
// Returns the configured columns that are missing, as "column (outbox.option)" texts.
std::vector<std::string> missing_outbox_columns(const std::vector<std::string>& columns,
                                                const config::OutboxSettings& settings);

}  // namespace outbox::router
