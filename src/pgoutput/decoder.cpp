#include "outbox/pgoutput/decoder.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "outbox/util/big_endian.hpp"
#include "outbox/util/type_byte.hpp"

// Mirrors the readers in PostgreSQL's src/backend/replication/logical/proto.c for protocol
// version 1 without streaming, so no message carries an xid prefix.

namespace outbox::pgoutput {
namespace {

std::string_view message_name(char type) {
    switch (type) {
        case 'B': return "BEGIN";
        case 'C': return "COMMIT";
        case 'O': return "ORIGIN";
        case 'R': return "RELATION";
        case 'Y': return "TYPE";
        case 'I': return "INSERT";
        case 'U': return "UPDATE";
        case 'D': return "DELETE";
        case 'T': return "TRUNCATE";
        case 'M': return "MESSAGE";
        default: return "unknown message";
    }
}

// Bounds-checked big-endian cursor over one message. Offsets in error messages count from the
// type byte, so they match a hex dump of the payload.
class Reader {
public:
    Reader(std::span<const char> bytes, Lsn wal_position) : bytes_(bytes), wal_position_(wal_position) {}

    [[noreturn]] void fail(std::string_view what) const {
        const char type = bytes_[0];
        std::string text = "pgoutput ";
        text += message_name(type);
        text += " (";
        text += type_byte_text(type);
        text += ") at WAL ";
        text += format_lsn(wal_position_);
        text += ": ";
        text += what;
        throw ProtocolError(text);
    }

    std::uint8_t read_u8(std::string_view field) { return static_cast<std::uint8_t>(read_be(1, field)); }
    char read_char(std::string_view field) { return static_cast<char>(read_be(1, field)); }
    std::int16_t read_i16(std::string_view field) { return static_cast<std::int16_t>(read_be(2, field)); }
    std::uint32_t read_u32(std::string_view field) { return static_cast<std::uint32_t>(read_be(4, field)); }
    std::int32_t read_i32(std::string_view field) { return static_cast<std::int32_t>(read_be(4, field)); }
    std::int64_t read_i64(std::string_view field) { return static_cast<std::int64_t>(read_be(8, field)); }
    Lsn read_lsn(std::string_view field) { return read_be(8, field); }

    std::string_view read_string(std::string_view field) {
        const char* start = bytes_.data() + offset_;
        const auto* nul = static_cast<const char*>(std::memchr(start, '\0', remaining()));
        if (nul == nullptr) {
            fail("unterminated string for " + std::string(field) + position());
        }
        const auto length = static_cast<std::size_t>(nul - start);
        offset_ += length + 1;
        return {start, length};
    }

    std::string_view read_bytes(std::size_t count, std::string_view field) {
        require(count, field);
        const char* start = bytes_.data() + offset_;
        offset_ += count;
        return {start, count};
    }

    // A length prefix that is negative cannot come from a correct sender and would wrap when
    // converted to size_t.
    std::size_t read_count(std::string_view field) {
        const std::int32_t count = read_i32(field);
        if (count < 0) fail("negative " + std::string(field) + " " + std::to_string(count));
        return static_cast<std::size_t>(count);
    }

    std::size_t read_count16(std::string_view field) {
        const std::int16_t count = read_i16(field);
        if (count < 0) fail("negative " + std::string(field) + " " + std::to_string(count));
        return static_cast<std::size_t>(count);
    }

    // Leftover bytes mean we disagree with the sender about the layout; decoding further
    // messages on that assumption would silently corrupt data.
    void expect_end() const {
        if (remaining() != 0) [[unlikely]] {
            fail("trailing bytes: " + std::to_string(remaining()) + " bytes left" + position());
        }
    }

private:
    std::size_t remaining() const { return bytes_.size() - offset_; }

    std::string position() const {
        return " at offset " + std::to_string(offset_) + ", message is " + std::to_string(bytes_.size()) +
               " bytes";
    }

    void require(std::size_t count, std::string_view field) const {
        if (count > remaining()) [[unlikely]] {
            truncated(count, field);
        }
    }

    [[noreturn]] [[gnu::noinline]] [[gnu::cold]] void truncated(std::size_t count, std::string_view field) const {
        fail("truncated: need " + std::to_string(count) + " bytes for " + std::string(field) + position());
    }

    // One unaligned load and a byte swap; `width` is a constant wherever this is inlined.
    std::uint64_t read_be(std::size_t width, std::string_view field) {
        require(width, field);
        const char* at = bytes_.data() + offset_;
        offset_ += width;
        switch (width) {
            case 1: return static_cast<unsigned char>(*at);
            case 2: return load_be<std::uint16_t>(at);
            case 4: return load_be<std::uint32_t>(at);
            default: return load_be<std::uint64_t>(at);
        }
    }

    std::span<const char> bytes_;
    std::size_t offset_ = 1;  // past the type byte, which decode() has already dispatched on
    Lsn wal_position_;
};

// The publisher writes an empty namespace for pg_catalog to save bytes (logicalrep_write_namespace).
std::string_view read_namespace(Reader& in, std::string_view field) {
    const std::string_view nspname = in.read_string(field);
    return nspname.empty() ? std::string_view("pg_catalog") : nspname;
}

// Sized once, then filled in place: the vector keeps its capacity between messages, so this
// neither allocates nor checks capacity per column.
void read_tuple(Reader& in, std::vector<ColumnValue>& values) {
    const std::size_t natts = in.read_count16("tuple column count");
    values.resize(natts);
    ColumnValue* out = values.data();
    for (std::size_t i = 0; i < natts; ++i) {
        const char kind = in.read_char("column kind");
        switch (kind) {
            case 'n':
                out[i] = {ValueKind::null, {}};
                break;
            case 'u':
                out[i] = {ValueKind::unchanged_toast, {}};
                break;
            case 't':
            case 'b': {
                const std::size_t length = in.read_count("column length");
                out[i] = {static_cast<ValueKind>(kind), in.read_bytes(length, "column data")};
                break;
            }
            default:
                values.resize(i);
                in.fail("unknown column kind " + type_byte_text(kind) + " for column " + std::to_string(i));
        }
    }
}

Begin read_begin(Reader& in) {
    Begin begin;
    begin.final_lsn = in.read_lsn("final LSN");
    if (begin.final_lsn == 0) in.fail("final LSN not set");
    begin.commit_time_us = in.read_i64("commit timestamp");
    begin.xid = in.read_u32("xid");
    return begin;
}

Commit read_commit(Reader& in) {
    Commit commit;
    commit.flags = in.read_u8("flags");
    // PostgreSQL rejects these too: a nonzero value means a protocol feature we did not negotiate.
    if (commit.flags != 0) in.fail("unrecognized flags " + std::to_string(commit.flags));
    commit.commit_lsn = in.read_lsn("commit LSN");
    commit.end_lsn = in.read_lsn("end LSN");
    commit.commit_time_us = in.read_i64("commit timestamp");
    return commit;
}

Origin read_origin(Reader& in) {
    // Braced initialisers are evaluated in order, as the fields are on the wire.
    return Origin{.origin_lsn = in.read_lsn("origin LSN"), .name = in.read_string("origin name")};
}

Relation read_relation(Reader& in, std::vector<RelationColumn>& columns) {
    Relation relation;
    relation.relid = in.read_u32("relation id");
    relation.nspname = read_namespace(in, "namespace");
    relation.relname = in.read_string("relation name");
    relation.replica_identity = in.read_char("replica identity");
    switch (relation.replica_identity) {
        case 'd':
        case 'n':
        case 'f':
        case 'i':
            break;
        default:
            in.fail("unknown replica identity " + type_byte_text(relation.replica_identity));
    }
    columns.clear();
    const std::size_t natts = in.read_count16("column count");
    for (std::size_t i = 0; i < natts; ++i) {
        RelationColumn column;
        column.flags = in.read_u8("column flags");
        column.name = in.read_string("column name");
        column.type_oid = in.read_u32("column type oid");
        column.type_modifier = in.read_i32("column type modifier");
        columns.push_back(column);
    }
    relation.columns = columns;
    return relation;
}

Type read_type(Reader& in) {
    Type type;
    type.type_oid = in.read_u32("type oid");
    type.nspname = read_namespace(in, "namespace");
    type.name = in.read_string("type name");
    return type;
}

void expect_new_tuple_marker(Reader& in, char marker) {
    if (marker != 'N') in.fail("expected new tuple marker 'N', got " + type_byte_text(marker));
}

Insert read_insert(Reader& in, std::vector<ColumnValue>& new_values) {
    Insert insert;
    insert.relid = in.read_u32("relation id");
    expect_new_tuple_marker(in, in.read_char("new tuple marker"));
    read_tuple(in, new_values);
    insert.new_tuple = new_values;
    return insert;
}

Update read_update(Reader& in, std::vector<ColumnValue>& old_values, std::vector<ColumnValue>& new_values) {
    Update update;
    update.relid = in.read_u32("relation id");
    char marker = in.read_char("tuple marker");
    // The old tuple is only sent when key columns changed ('K') or the table has REPLICA IDENTITY
    // FULL ('O'); otherwise the new tuple marker comes straight after the relid.
    if (marker == 'K' || marker == 'O') {
        update.old_tuple_kind = marker;
        read_tuple(in, old_values);
        update.old_tuple = old_values;
        marker = in.read_char("new tuple marker");
    }
    expect_new_tuple_marker(in, marker);
    read_tuple(in, new_values);
    update.new_tuple = new_values;
    return update;
}

Delete read_delete(Reader& in, std::vector<ColumnValue>& old_values) {
    Delete del;
    del.relid = in.read_u32("relation id");
    del.old_tuple_kind = in.read_char("old tuple marker");
    if (del.old_tuple_kind != 'K' && del.old_tuple_kind != 'O') {
        in.fail("expected old tuple marker 'K' or 'O', got " + type_byte_text(del.old_tuple_kind));
    }
    read_tuple(in, old_values);
    del.old_tuple = old_values;
    return del;
}

Truncate read_truncate(Reader& in, std::vector<std::uint32_t>& relids) {
    Truncate truncate;
    const std::size_t nrelids = in.read_count("relation count");
    // Unknown option bits are not checked, matching logicalrep_read_truncate: they only refine
    // how the truncate is applied and cannot change the layout.
    truncate.flags = in.read_u8("flags");
    relids.clear();
    for (std::size_t i = 0; i < nrelids; ++i) relids.push_back(in.read_u32("relation id"));
    truncate.relids = relids;
    return truncate;
}

LogicalMessage read_message(Reader& in) {
    constexpr std::uint8_t kTransactional = 1;
    LogicalMessage message;
    const std::uint8_t flags = in.read_u8("flags");
    if ((flags & ~kTransactional) != 0) in.fail("unrecognized flags " + std::to_string(flags));
    message.transactional = (flags & kTransactional) != 0;
    message.lsn = in.read_lsn("message LSN");
    message.prefix = in.read_string("prefix");
    const std::size_t length = in.read_count("content length");
    message.content = in.read_bytes(length, "content");
    return message;
}

}  // namespace

Message Decoder::decode(std::span<const char> bytes, Lsn wal_position) {
    if (bytes.empty()) {
        throw ProtocolError("pgoutput message at WAL " + format_lsn(wal_position) + ": empty message");
    }
    Reader in(bytes, wal_position);
    // Each message is built in the variant being returned (no default Begin to overwrite).
    const auto complete = [&in](auto&& message) -> Message {
        in.expect_end();
        return Message(std::forward<decltype(message)>(message));
    };
    switch (bytes[0]) {
        case 'I': return complete(read_insert(in, new_values_));
        case 'B': return complete(read_begin(in));
        case 'C': return complete(read_commit(in));
        case 'O': return complete(read_origin(in));
        case 'R': return complete(read_relation(in, relation_columns_));
        case 'Y': return complete(read_type(in));
        case 'U': return complete(read_update(in, old_values_, new_values_));
        case 'D': return complete(read_delete(in, old_values_));
        case 'T': return complete(read_truncate(in, truncate_relids_));
        case 'M': return complete(read_message(in));
        // Streaming and two-phase messages (S E c A b P K r p) land here too: we never ask for them.
        default: in.fail("unknown message type");
    }
}

}  // namespace outbox::pgoutput
