#define BOOST_TEST_MODULE pgoutput_decoder
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "outbox/pgoutput/decoder.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/lsn.hpp"

using namespace outbox;
using namespace outbox::pgoutput;

namespace {

constexpr Lsn kWal = 0x16B3748;  // formats as "0/16B3748"

// Appends pgoutput fields in wire order (big-endian, NUL-terminated strings).
class Bytes {
public:
    Bytes& u8(std::uint8_t v) {
        data_.push_back(static_cast<char>(v));
        return *this;
    }
    Bytes& ch(char c) {
        data_.push_back(c);
        return *this;
    }
    Bytes& i16(std::int16_t v) { return be(static_cast<std::uint16_t>(v), 2); }
    Bytes& i32(std::int32_t v) { return be(static_cast<std::uint32_t>(v), 4); }
    Bytes& u32(std::uint32_t v) { return be(v, 4); }
    Bytes& i64(std::int64_t v) { return be(static_cast<std::uint64_t>(v), 8); }
    Bytes& lsn(Lsn v) { return be(v, 8); }
    Bytes& str(std::string_view s) {
        data_.insert(data_.end(), s.begin(), s.end());
        data_.push_back('\0');
        return *this;
    }
    Bytes& raw(std::string_view s) {
        data_.insert(data_.end(), s.begin(), s.end());
        return *this;
    }
    // A 't' or 'b' column: kind, Int32 length, bytes.
    Bytes& value(char kind, std::string_view s) {
        ch(kind).i32(static_cast<std::int32_t>(s.size()));
        return raw(s);
    }

    const std::vector<char>& vec() const { return data_; }
    std::span<const char> span() const { return data_; }

private:
    Bytes& be(std::uint64_t v, int width) {
        for (int shift = 8 * (width - 1); shift >= 0; shift -= 8) data_.push_back(static_cast<char>(v >> shift));
        return *this;
    }

    std::vector<char> data_;
};

template <class T>
T decode_as(Decoder& decoder, std::span<const char> bytes, Lsn wal = kWal) {
    const Message message = decoder.decode(bytes, wal);
    BOOST_REQUIRE(std::holds_alternative<T>(message));
    return std::get<T>(message);
}

std::string error_of(std::span<const char> bytes, Lsn wal = kWal) {
    Decoder decoder;
    try {
        decoder.decode(bytes, wal);
    } catch (const ProtocolError& e) {
        return e.what();
    }
    BOOST_FAIL("expected ProtocolError, message decoded");
    return {};
}

bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

std::string str(std::string_view s) { return std::string(s); }

Bytes begin_message() { return Bytes().ch('B').lsn(0x1'0000'00A0).i64(712'345'678'901'234).u32(4'000'000'123); }
Bytes commit_message() {
    return Bytes().ch('C').u8(0).lsn(0x1'0000'00A0).lsn(0x1'0000'00D8).i64(712'345'678'901'234);
}
Bytes origin_message() { return Bytes().ch('O').lsn(0xABCDEF'0123'4567).str("node_a"); }
Bytes relation_message() {
    return Bytes()
        .ch('R')
        .u32(16'385)
        .str("public")
        .str("outbox")
        .ch('f')
        .i16(2)
        .u8(1)
        .str("id")
        .u32(20)
        .i32(-1)
        .u8(0)
        .str("payload")
        .u32(1043)
        .i32(259);
}
Bytes type_message() { return Bytes().ch('Y').u32(70'000).str("app").str("mood"); }
Bytes insert_message() {
    return Bytes()
        .ch('I')
        .u32(16'385)
        .ch('N')
        .i16(4)
        .ch('n')
        .ch('u')
        .value('t', "hello")
        .value('b', std::string_view("\x00\xff\x01", 3));
}
Bytes update_message_with_old(char old_kind) {
    return Bytes()
        .ch('U')
        .u32(16'386)
        .ch(old_kind)
        .i16(2)
        .value('t', "1")
        .ch('n')
        .ch('N')
        .i16(2)
        .value('t', "2")
        .value('t', "new");
}
Bytes update_message_without_old() { return Bytes().ch('U').u32(16'386).ch('N').i16(1).value('t', "only"); }
Bytes delete_message(char old_kind) { return Bytes().ch('D').u32(16'387).ch(old_kind).i16(1).value('t', "42"); }
Bytes truncate_message() { return Bytes().ch('T').i32(2).u8(3).u32(16'385).u32(4'000'000'000); }
Bytes logical_message(std::uint8_t flags) {
    return Bytes().ch('M').u8(flags).lsn(0x2'0000'0010).str("outbox").i32(5).raw(std::string_view("a\0b\nc", 5));
}

std::vector<std::pair<std::string, Bytes>> valid_messages() {
    return {
        {"BEGIN", begin_message()},
        {"COMMIT", commit_message()},
        {"ORIGIN", origin_message()},
        {"RELATION", relation_message()},
        {"TYPE", type_message()},
        {"INSERT", insert_message()},
        {"UPDATE K", update_message_with_old('K')},
        {"UPDATE O", update_message_with_old('O')},
        {"UPDATE", update_message_without_old()},
        {"DELETE K", delete_message('K')},
        {"DELETE O", delete_message('O')},
        {"TRUNCATE", truncate_message()},
        {"MESSAGE", logical_message(1)},
    };
}

// Reads every byte every view refers to, so ASan reports a view that escapes its buffer.
std::size_t touch_views(const Message& message) {
    std::size_t sum = 0;
    const auto touch = [&](std::string_view s) {
        for (const char c : s) sum += static_cast<unsigned char>(c);
    };
    const auto touch_tuple = [&](Tuple tuple) {
        for (const auto& v : tuple) touch(v.data);
    };
    std::visit(
        [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Origin>) touch(m.name);
            if constexpr (std::is_same_v<T, Relation>) {
                touch(m.nspname);
                touch(m.relname);
                for (const auto& column : m.columns) touch(column.name);
            }
            if constexpr (std::is_same_v<T, Type>) {
                touch(m.nspname);
                touch(m.name);
            }
            if constexpr (std::is_same_v<T, Insert>) touch_tuple(m.new_tuple);
            if constexpr (std::is_same_v<T, Update>) {
                touch_tuple(m.old_tuple);
                touch_tuple(m.new_tuple);
            }
            if constexpr (std::is_same_v<T, Delete>) touch_tuple(m.old_tuple);
            if constexpr (std::is_same_v<T, Truncate>) {
                for (const auto relid : m.relids) sum += relid;
            }
            if constexpr (std::is_same_v<T, LogicalMessage>) {
                touch(m.prefix);
                touch(m.content);
            }
        },
        message);
    return sum;
}

}  // namespace

BOOST_AUTO_TEST_CASE(begin_decodes_every_field) {
    const Bytes bytes = begin_message();
    Decoder decoder;
    const auto begin = decode_as<Begin>(decoder, bytes.span());
    BOOST_TEST(begin.final_lsn == 0x1'0000'00A0u);
    BOOST_TEST(begin.commit_time_us == 712'345'678'901'234);
    BOOST_TEST(begin.xid == 4'000'000'123u);
}

BOOST_AUTO_TEST_CASE(commit_decodes_every_field) {
    const Bytes bytes = commit_message();
    Decoder decoder;
    const auto commit = decode_as<Commit>(decoder, bytes.span());
    BOOST_TEST(commit.flags == 0);
    BOOST_TEST(commit.commit_lsn == 0x1'0000'00A0u);
    BOOST_TEST(commit.end_lsn == 0x1'0000'00D8u);
    BOOST_TEST(commit.commit_time_us == 712'345'678'901'234);
}

BOOST_AUTO_TEST_CASE(negative_timestamp_survives) {
    const Bytes bytes = Bytes().ch('B').lsn(1).i64(-5).u32(0);
    Decoder decoder;
    const auto begin = decode_as<Begin>(decoder, bytes.span());
    BOOST_TEST(begin.commit_time_us == -5);
}

BOOST_AUTO_TEST_CASE(origin_decodes_every_field) {
    const Bytes bytes = origin_message();
    Decoder decoder;
    const auto origin = decode_as<Origin>(decoder, bytes.span());
    BOOST_TEST(origin.origin_lsn == 0xABCDEF'0123'4567u);
    BOOST_TEST(str(origin.name) == "node_a");
}

BOOST_AUTO_TEST_CASE(relation_decodes_every_field) {
    const Bytes bytes = relation_message();
    Decoder decoder;
    const auto relation = decode_as<Relation>(decoder, bytes.span());
    BOOST_TEST(relation.relid == 16'385u);
    BOOST_TEST(str(relation.nspname) == "public");
    BOOST_TEST(str(relation.relname) == "outbox");
    BOOST_TEST(relation.replica_identity == 'f');
    BOOST_REQUIRE(relation.columns.size() == 2u);
    BOOST_TEST(relation.columns[0].flags == 1);
    BOOST_TEST(str(relation.columns[0].name) == "id");
    BOOST_TEST(relation.columns[0].type_oid == 20u);
    BOOST_TEST(relation.columns[0].type_modifier == -1);
    BOOST_TEST(relation.columns[1].flags == 0);
    BOOST_TEST(str(relation.columns[1].name) == "payload");
    BOOST_TEST(relation.columns[1].type_oid == 1043u);
    BOOST_TEST(relation.columns[1].type_modifier == 259);
}

BOOST_AUTO_TEST_CASE(relation_accepts_every_replica_identity_and_zero_columns) {
    for (const char identity : {'d', 'n', 'f', 'i'}) {
        const Bytes bytes = Bytes().ch('R').u32(7).str("s").str("t").ch(identity).i16(0);
        Decoder decoder;
        const auto relation = decode_as<Relation>(decoder, bytes.span());
        BOOST_TEST(relation.replica_identity == identity);
        BOOST_TEST(relation.columns.empty());
    }
}

BOOST_AUTO_TEST_CASE(relation_empty_namespace_is_pg_catalog) {
    const Bytes bytes = Bytes().ch('R').u32(1259).str("").str("pg_class").ch('d').i16(0);
    Decoder decoder;
    const auto relation = decode_as<Relation>(decoder, bytes.span());
    BOOST_TEST(str(relation.nspname) == "pg_catalog");
    BOOST_TEST(str(relation.relname) == "pg_class");
}

BOOST_AUTO_TEST_CASE(type_decodes_every_field) {
    const Bytes bytes = type_message();
    Decoder decoder;
    const auto type = decode_as<Type>(decoder, bytes.span());
    BOOST_TEST(type.type_oid == 70'000u);
    BOOST_TEST(str(type.nspname) == "app");
    BOOST_TEST(str(type.name) == "mood");
}

BOOST_AUTO_TEST_CASE(type_empty_namespace_is_pg_catalog) {
    const Bytes bytes = Bytes().ch('Y').u32(25).str("").str("text");
    Decoder decoder;
    const auto type = decode_as<Type>(decoder, bytes.span());
    BOOST_TEST(str(type.nspname) == "pg_catalog");
    BOOST_TEST(str(type.name) == "text");
}

BOOST_AUTO_TEST_CASE(insert_decodes_every_value_kind) {
    const Bytes bytes = insert_message();
    Decoder decoder;
    const auto insert = decode_as<Insert>(decoder, bytes.span());
    BOOST_TEST(insert.relid == 16'385u);
    BOOST_REQUIRE(insert.new_tuple.size() == 4u);
    BOOST_TEST((insert.new_tuple[0].kind == ValueKind::null));
    BOOST_TEST(insert.new_tuple[0].data.empty());
    BOOST_TEST((insert.new_tuple[1].kind == ValueKind::unchanged_toast));
    BOOST_TEST(insert.new_tuple[1].data.empty());
    BOOST_TEST((insert.new_tuple[2].kind == ValueKind::text));
    BOOST_TEST(str(insert.new_tuple[2].data) == "hello");
    BOOST_TEST((insert.new_tuple[3].kind == ValueKind::binary));
    BOOST_TEST(str(insert.new_tuple[3].data) == std::string("\x00\xff\x01", 3));
}

BOOST_AUTO_TEST_CASE(insert_views_point_into_the_input_buffer) {
    const Bytes bytes = insert_message();
    Decoder decoder;
    const auto insert = decode_as<Insert>(decoder, bytes.span());
    const char* begin = bytes.vec().data();
    const char* end = begin + bytes.vec().size();
    BOOST_TEST((insert.new_tuple[2].data.data() >= begin && insert.new_tuple[2].data.data() < end));
}

BOOST_AUTO_TEST_CASE(insert_empty_text_value_is_text_not_null) {
    const Bytes bytes = Bytes().ch('I').u32(1).ch('N').i16(1).value('t', "");
    Decoder decoder;
    const auto insert = decode_as<Insert>(decoder, bytes.span());
    BOOST_REQUIRE(insert.new_tuple.size() == 1u);
    BOOST_TEST((insert.new_tuple[0].kind == ValueKind::text));
    BOOST_TEST(insert.new_tuple[0].data.empty());
}

BOOST_AUTO_TEST_CASE(update_without_old_tuple) {
    const Bytes bytes = update_message_without_old();
    Decoder decoder;
    const auto update = decode_as<Update>(decoder, bytes.span());
    BOOST_TEST(update.relid == 16'386u);
    BOOST_TEST(update.old_tuple_kind == 0);
    BOOST_TEST(update.old_tuple.empty());
    BOOST_REQUIRE(update.new_tuple.size() == 1u);
    BOOST_TEST((update.new_tuple[0].kind == ValueKind::text));
    BOOST_TEST(str(update.new_tuple[0].data) == "only");
}

BOOST_AUTO_TEST_CASE(update_with_key_and_full_old_tuple) {
    for (const char kind : {'K', 'O'}) {
        BOOST_TEST_CONTEXT("old tuple kind " << kind) {
            const Bytes bytes = update_message_with_old(kind);
            Decoder decoder;
            const auto update = decode_as<Update>(decoder, bytes.span());
            BOOST_TEST(update.relid == 16'386u);
            BOOST_TEST(update.old_tuple_kind == kind);
            BOOST_REQUIRE(update.old_tuple.size() == 2u);
            BOOST_TEST((update.old_tuple[0].kind == ValueKind::text));
            BOOST_TEST(str(update.old_tuple[0].data) == "1");
            BOOST_TEST((update.old_tuple[1].kind == ValueKind::null));
            BOOST_REQUIRE(update.new_tuple.size() == 2u);
            BOOST_TEST(str(update.new_tuple[0].data) == "2");
            BOOST_TEST(str(update.new_tuple[1].data) == "new");
        }
    }
}

BOOST_AUTO_TEST_CASE(update_old_tuple_after_update_without_one_is_empty) {
    Decoder decoder;
    const Bytes with_old = update_message_with_old('O');
    const Bytes without_old = update_message_without_old();
    decode_as<Update>(decoder, with_old.span());
    const auto update = decode_as<Update>(decoder, without_old.span());
    BOOST_TEST(update.old_tuple_kind == 0);
    BOOST_TEST(update.old_tuple.empty());
    BOOST_TEST(update.new_tuple.size() == 1u);
}

BOOST_AUTO_TEST_CASE(delete_decodes_key_and_full_old_tuple) {
    for (const char kind : {'K', 'O'}) {
        BOOST_TEST_CONTEXT("old tuple kind " << kind) {
            const Bytes bytes = delete_message(kind);
            Decoder decoder;
            const auto del = decode_as<Delete>(decoder, bytes.span());
            BOOST_TEST(del.relid == 16'387u);
            BOOST_TEST(del.old_tuple_kind == kind);
            BOOST_REQUIRE(del.old_tuple.size() == 1u);
            BOOST_TEST((del.old_tuple[0].kind == ValueKind::text));
            BOOST_TEST(str(del.old_tuple[0].data) == "42");
        }
    }
}

BOOST_AUTO_TEST_CASE(truncate_decodes_two_relids) {
    const Bytes bytes = truncate_message();
    Decoder decoder;
    const auto truncate = decode_as<Truncate>(decoder, bytes.span());
    BOOST_TEST(truncate.flags == 3);
    BOOST_REQUIRE(truncate.relids.size() == 2u);
    BOOST_TEST(truncate.relids[0] == 16'385u);
    BOOST_TEST(truncate.relids[1] == 4'000'000'000u);
}

BOOST_AUTO_TEST_CASE(message_transactional_and_not) {
    for (const std::uint8_t flags : {std::uint8_t{0}, std::uint8_t{1}}) {
        BOOST_TEST_CONTEXT("flags " << int{flags}) {
            const Bytes bytes = logical_message(flags);
            Decoder decoder;
            const auto message = decode_as<LogicalMessage>(decoder, bytes.span());
            BOOST_TEST(message.transactional == (flags == 1));
            BOOST_TEST(message.lsn == 0x2'0000'0010u);
            BOOST_TEST(str(message.prefix) == "outbox");
            BOOST_TEST(str(message.content) == std::string("a\0b\nc", 5));
        }
    }
}

BOOST_AUTO_TEST_CASE(message_with_empty_content) {
    const Bytes bytes = Bytes().ch('M').u8(0).lsn(9).str("p").i32(0);
    Decoder decoder;
    const auto message = decode_as<LogicalMessage>(decoder, bytes.span());
    BOOST_TEST(message.content.empty());
    BOOST_TEST(str(message.prefix) == "p");
}

BOOST_AUTO_TEST_CASE(every_strict_prefix_of_every_message_is_rejected) {
    for (const auto& [name, bytes] : valid_messages()) {
        BOOST_TEST_CONTEXT(name) {
            Decoder decoder;
            BOOST_REQUIRE_NO_THROW(decoder.decode(bytes.span(), kWal));
            for (std::size_t length = 0; length < bytes.vec().size(); ++length) {
                BOOST_TEST_CONTEXT("prefix of " << length << " bytes") {
                    // A copy of exactly `length` bytes lets ASan catch any read past the prefix.
                    const std::vector<char> prefix(bytes.vec().begin(), bytes.vec().begin() + length);
                    const std::string error = error_of(prefix);
                    BOOST_TEST((contains(error, "truncated") || contains(error, "unterminated string") ||
                                contains(error, "empty message")),
                               error);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(trailing_bytes_are_rejected) {
    for (const auto& [name, bytes] : valid_messages()) {
        BOOST_TEST_CONTEXT(name) {
            std::vector<char> longer = bytes.vec();
            longer.push_back('\0');
            const std::string error = error_of(longer);
            BOOST_TEST(contains(error, "trailing bytes"), error);
        }
    }
}

BOOST_AUTO_TEST_CASE(empty_buffer_is_rejected) {
    const std::string error = error_of({}, 0x1'0000'0002);
    BOOST_TEST(error == "pgoutput message at WAL 1/2: empty message");
}

BOOST_AUTO_TEST_CASE(unknown_and_unrequested_type_bytes_are_rejected) {
    for (const char type : std::string_view("ZSEcAbPKrpw")) {
        BOOST_TEST_CONTEXT("type " << type) {
            const std::string error = error_of(Bytes().ch(type).i64(1).i64(2).span());
            BOOST_TEST(error == "pgoutput unknown message ('" + std::string(1, type) +
                                    "') at WAL 0/16B3748: unknown message type");
        }
    }
}

BOOST_AUTO_TEST_CASE(non_printable_type_byte_is_shown_in_hex) {
    const std::string error = error_of(Bytes().u8(0x07).span());
    BOOST_TEST(error == "pgoutput unknown message (0x07) at WAL 0/16B3748: unknown message type");
    BOOST_TEST(contains(error_of(Bytes().u8(0xC3).span()), "(0xC3)"));
}

BOOST_AUTO_TEST_CASE(error_names_type_wal_position_and_problem) {
    // 'I', relid, 'N', natts=4, n, n, u, 't' and then only two of the four length bytes.
    const Bytes bytes = Bytes().ch('I').u32(1).ch('N').i16(4).ch('n').ch('n').ch('u').ch('t').u8(0).u8(0);
    BOOST_TEST(error_of(bytes.span()) ==
               "pgoutput INSERT ('I') at WAL 0/16B3748: truncated: need 4 bytes for column length at offset 12, "
               "message is 14 bytes");
    BOOST_TEST(contains(error_of(bytes.span(), 0x16'B374D848), "at WAL " + format_lsn(0x16'B374D848)));
}

BOOST_AUTO_TEST_CASE(error_names_each_message_type) {
    const std::vector<std::pair<std::string, char>> names = {
        {"BEGIN", 'B'},  {"COMMIT", 'C'}, {"ORIGIN", 'O'},   {"RELATION", 'R'}, {"TYPE", 'Y'},
        {"INSERT", 'I'}, {"UPDATE", 'U'}, {"DELETE", 'D'}, {"TRUNCATE", 'T'}, {"MESSAGE", 'M'},
    };
    for (const auto& [name, type] : names) {
        const std::string error = error_of(Bytes().ch(type).span());
        BOOST_TEST(error.rfind("pgoutput " + name + " ('" + std::string(1, type) + "') at WAL 0/16B3748: truncated",
                               0) == 0u,
                   error);
    }
}

BOOST_AUTO_TEST_CASE(commit_with_nonzero_flags_is_rejected) {
    const Bytes bytes = Bytes().ch('C').u8(1).lsn(1).lsn(2).i64(3);
    BOOST_TEST(error_of(bytes.span()) == "pgoutput COMMIT ('C') at WAL 0/16B3748: unrecognized flags 1");
}

BOOST_AUTO_TEST_CASE(begin_with_zero_final_lsn_is_rejected) {
    const Bytes bytes = Bytes().ch('B').lsn(0).i64(1).u32(2);
    BOOST_TEST(error_of(bytes.span()) == "pgoutput BEGIN ('B') at WAL 0/16B3748: final LSN not set");
}

BOOST_AUTO_TEST_CASE(message_with_unknown_flag_bits_is_rejected) {
    for (const std::uint8_t flags : {std::uint8_t{2}, std::uint8_t{0x81}}) {
        const std::string error = error_of(logical_message(flags).span());
        BOOST_TEST(contains(error, "pgoutput MESSAGE ('M') at WAL 0/16B3748: unrecognized flags"), error);
    }
}

BOOST_AUTO_TEST_CASE(malformed_fields_are_rejected) {
    const std::vector<std::pair<Bytes, std::string>> cases = {
        {Bytes().ch('I').u32(1).ch('N').i16(-1), "negative tuple column count -1"},
        {Bytes().ch('I').u32(1).ch('N').i16(1).ch('t').i32(-2), "negative column length -2"},
        {Bytes().ch('I').u32(1).ch('N').i16(1).ch('b').i32(-2147483647 - 1), "negative column length -2147483648"},
        {Bytes().ch('I').u32(1).ch('N').i16(1).ch('x'), "unknown column kind 'x' for column 0"},
        {Bytes().ch('I').u32(1).ch('K').i16(0), "expected new tuple marker 'N', got 'K'"},
        {Bytes().ch('U').u32(1).ch('X').i16(0), "expected new tuple marker 'N', got 'X'"},
        {Bytes().ch('U').u32(1).ch('K').i16(0).ch('O').i16(0), "expected new tuple marker 'N', got 'O'"},
        {Bytes().ch('D').u32(1).ch('N').i16(0), "expected old tuple marker 'K' or 'O', got 'N'"},
        {Bytes().ch('R').u32(1).str("s").str("t").ch('x').i16(0), "unknown replica identity 'x'"},
        {Bytes().ch('R').u32(1).str("s").str("t").ch('d').i16(-3), "negative column count -3"},
        {Bytes().ch('T').i32(-1).u8(0), "negative relation count -1"},
        {Bytes().ch('M').u8(0).lsn(1).str("p").i32(-1), "negative content length -1"},
        {Bytes().ch('T').i32(1'000'000).u8(0).u32(1), "truncated: need 4 bytes for relation id at offset 10"},
        {Bytes().ch('O').lsn(1).raw("abc"), "unterminated string for origin name at offset 9, message is 12 bytes"},
    };
    for (const auto& [bytes, expected] : cases) {
        const std::string error = error_of(bytes.span());
        BOOST_TEST(contains(error, expected), error << " should contain " << expected);
    }
}

BOOST_AUTO_TEST_CASE(decoder_reuses_scratch_storage) {
    Decoder decoder;
    const Bytes first = insert_message();
    const Bytes second = Bytes().ch('I').u32(99).ch('N').i16(2).value('t', "x").ch('n');
    const auto a = decode_as<Insert>(decoder, first.span());
    const ColumnValue* storage = a.new_tuple.data();
    const auto b = decode_as<Insert>(decoder, second.span());
    BOOST_TEST(b.relid == 99u);
    BOOST_REQUIRE(b.new_tuple.size() == 2u);
    BOOST_TEST((b.new_tuple[0].kind == ValueKind::text));
    BOOST_TEST(str(b.new_tuple[0].data) == "x");
    BOOST_TEST((b.new_tuple[1].kind == ValueKind::null));
    BOOST_TEST(b.new_tuple.data() == storage, "second decode reallocated the value vector");
}

BOOST_AUTO_TEST_CASE(decoder_recovers_after_an_error) {
    Decoder decoder;
    const Bytes bad = Bytes().ch('I').u32(1).ch('N').i16(3).value('t', "a");
    BOOST_CHECK_THROW(decoder.decode(bad.span(), kWal), ProtocolError);
    const Bytes good = insert_message();
    const auto insert = decode_as<Insert>(decoder, good.span());
    BOOST_TEST(insert.new_tuple.size() == 4u);
    BOOST_TEST(str(insert.new_tuple[2].data) == "hello");
}

BOOST_AUTO_TEST_CASE(random_bytes_decode_or_throw_protocol_error) {
    constexpr std::string_view kTypes = "BCORYIUDTM";
    std::mt19937 rng(20240601);
    std::uniform_int_distribution<std::size_t> type_index(0, kTypes.size() - 1);
    std::uniform_int_distribution<std::size_t> length_dist(0, 64);
    std::uniform_int_distribution<int> byte_dist(0, 255);
    // Half the inputs are mostly tiny bytes, which makes counts and lengths small enough to
    // get past the first field or two.
    std::uniform_int_distribution<int> small_byte(0, 3);
    Decoder decoder;
    std::size_t decoded = 0;
    std::size_t rejected = 0;
    std::size_t checksum = 0;
    // A million inputs: the fault-tolerance issue's fuzzing bar (also run under ASan/UBSan by
    // `make sanitize`).
    for (int i = 0; i < 1'000'000; ++i) {
        const std::size_t length = length_dist(rng);
        const bool mostly_small = (i % 2) == 0;
        // Sized exactly so ASan flags any read past the end.
        std::vector<char> input(length);
        for (std::size_t j = 0; j < length; ++j) {
            input[j] = static_cast<char>(mostly_small && byte_dist(rng) < 200 ? small_byte(rng) : byte_dist(rng));
        }
        if (length > 0) input[0] = kTypes[type_index(rng)];
        try {
            checksum += touch_views(decoder.decode(input, kWal));
            ++decoded;
        } catch (const ProtocolError&) {
            ++rejected;
        }
    }
    BOOST_TEST_MESSAGE("random bytes: decoded " << decoded << ", rejected " << rejected << ", checksum " << checksum);
    BOOST_TEST(decoded + rejected == 1'000'000u);
    BOOST_TEST(decoded > 100u);
    BOOST_TEST(rejected > 500'000u);
}

BOOST_AUTO_TEST_CASE(corrupted_valid_messages_decode_or_throw_protocol_error) {
    // Flipping a few bytes of real messages reaches the tuple and column loops with hostile
    // counts and lengths, which purely random bytes rarely do.
    const auto messages = valid_messages();
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> message_index(0, messages.size() - 1);
    std::uniform_int_distribution<int> byte_dist(0, 255);
    std::uniform_int_distribution<int> flips_dist(1, 3);
    Decoder decoder;
    std::size_t decoded = 0;
    std::size_t rejected = 0;
    std::size_t checksum = 0;
    for (int i = 0; i < 250'000; ++i) {
        std::vector<char> input = messages[message_index(rng)].second.vec();
        std::uniform_int_distribution<std::size_t> position(1, input.size() - 1);
        for (int flips = flips_dist(rng); flips > 0; --flips) input[position(rng)] = static_cast<char>(byte_dist(rng));
        try {
            checksum += touch_views(decoder.decode(input, kWal));
            ++decoded;
        } catch (const ProtocolError&) {
            ++rejected;
        }
    }
    BOOST_TEST_MESSAGE("corrupted messages: decoded " << decoded << ", rejected " << rejected
                                                   << ", checksum " << checksum);
    BOOST_TEST(decoded > 1'000u);
    BOOST_TEST(rejected > 1'000u);
}
