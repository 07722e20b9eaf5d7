#pragma once

#include <span>
#include <vector>

#include "outbox/pgoutput/messages.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::pgoutput {

// Decodes one pgoutput message (the payload of an XLogData frame) into a typed message.
// Pure: bytes in, message out, no I/O. Every read is bounds-checked; truncated, malformed
// or unknown input throws ProtocolError naming the type byte and `wal_position`.
// The decoder reuses its scratch vectors across calls so steady-state decoding does not
// allocate; views in the returned message stay valid until the next decode() call and
// while `bytes` is alive.
class Decoder {
public:
    Message decode(std::span<const char> bytes, Lsn wal_position);

private:
    std::vector<RelationColumn> relation_columns_;
    std::vector<ColumnValue> old_values_;
    std::vector<ColumnValue> new_values_;
    std::vector<std::uint32_t> truncate_relids_;
};

}  // namespace outbox::pgoutput
