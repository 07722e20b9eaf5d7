#pragma once

// Typed pgoutput messages (protocol version 1, plus MESSAGE from PostgreSQL 14).
// Every string_view and span points into the buffer that was decoded (or into the
// decoder's scratch storage) and is valid until that buffer is released or the
// decoder decodes the next message.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "outbox/util/lsn.hpp"

namespace outbox::pgoutput {

struct Begin {
    Lsn final_lsn = 0;             // LSN of the commit record
    std::int64_t commit_time_us = 0;  // microseconds since 2000-01-01 UTC
    std::uint32_t xid = 0;
};

struct Commit {
    std::uint8_t flags = 0;
    Lsn commit_lsn = 0;
    Lsn end_lsn = 0;  // end of the commit record: the position to confirm
    std::int64_t commit_time_us = 0;
};

struct Origin {
    Lsn origin_lsn = 0;
    std::string_view name;
};

struct RelationColumn {
    std::uint8_t flags = 0;  // bit 0: part of the replica identity key
    std::string_view name;
    std::uint32_t type_oid = 0;
    std::int32_t type_modifier = 0;
};

struct Relation {
    std::uint32_t relid = 0;
    std::string_view nspname;  // already mapped: empty on the wire means "pg_catalog"
    std::string_view relname;
    char replica_identity = 'd';  // d, n, f or i
    std::span<const RelationColumn> columns;
};

struct Type {
    std::uint32_t type_oid = 0;
    std::string_view nspname;
    std::string_view name;
};

enum class ValueKind : char {
    null = 'n',
    unchanged_toast = 'u',
    text = 't',
    binary = 'b',
};

struct ColumnValue {
    ValueKind kind = ValueKind::null;
    std::string_view data;  // empty unless kind is text or binary
};

using Tuple = std::span<const ColumnValue>;

struct Insert {
    std::uint32_t relid = 0;
    Tuple new_tuple;
};

struct Update {
    std::uint32_t relid = 0;
    char old_tuple_kind = 0;  // 0 (absent), 'K' (key columns) or 'O' (whole old row)
    Tuple old_tuple;
    Tuple new_tuple;
};

struct Delete {
    std::uint32_t relid = 0;
    char old_tuple_kind = 'K';  // 'K' or 'O'
    Tuple old_tuple;
};

struct Truncate {
    std::uint8_t flags = 0;  // 1 = CASCADE, 2 = RESTART IDENTITY
    std::span<const std::uint32_t> relids;
};

struct LogicalMessage {
    bool transactional = false;
    Lsn lsn = 0;
    std::string_view prefix;
    std::string_view content;
};

using Message = std::variant<Begin, Commit, Origin, Relation, Type, Insert, Update, Delete, Truncate,
                             LogicalMessage>;

}  // namespace outbox::pgoutput
