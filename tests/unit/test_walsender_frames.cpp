#define BOOST_TEST_MODULE walsender_frames
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::replication;

namespace {

class Bytes {
public:
    Bytes& ch(char c) {
        data_.push_back(c);
        return *this;
    }
    Bytes& u8(std::uint8_t v) { return ch(static_cast<char>(v)); }
    Bytes& u64(std::uint64_t v) {
        for (int shift = 56; shift >= 0; shift -= 8) data_.push_back(static_cast<char>(v >> shift));
        return *this;
    }
    Bytes& i64(std::int64_t v) { return u64(static_cast<std::uint64_t>(v)); }
    Bytes& raw(std::string_view s) {
        data_.insert(data_.end(), s.begin(), s.end());
        return *this;
    }
    const std::vector<char>& vec() const { return data_; }

private:
    std::vector<char> data_;
};

std::string error_of(const std::vector<char>& bytes) {
    try {
        parse_server_frame(bytes);
    } catch (const ProtocolError& e) {
        return e.what();
    }
    BOOST_FAIL("expected ProtocolError, frame parsed");
    return {};
}

Bytes xlogdata_frame(std::string_view payload) {
    return Bytes().ch('w').u64(0x16'B374D848).u64(0x16'B374D900).i64(765'432'109'876'543).raw(payload);
}

Bytes keepalive_frame(std::uint8_t reply_requested) {
    return Bytes().ch('k').u64(0x1'0000'0002).i64(-42).u8(reply_requested);
}

}  // namespace

BOOST_AUTO_TEST_CASE(xlogdata_parses_header_and_views_payload) {
    const Bytes bytes = xlogdata_frame(std::string_view("B\x00\x01payload", 10));
    const ServerFrame frame = parse_server_frame(bytes.vec());
    BOOST_REQUIRE(std::holds_alternative<XLogData>(frame));
    const auto& data = std::get<XLogData>(frame);
    BOOST_TEST(data.data_start == 0x16'B374D848u);
    BOOST_TEST(data.wal_end == 0x16'B374D900u);
    BOOST_TEST(data.send_time_us == 765'432'109'876'543);
    BOOST_TEST(data.payload.size() == bytes.vec().size() - 25);
    BOOST_TEST((data.payload.data() == bytes.vec().data() + 25));
    BOOST_TEST(std::string(data.payload.begin(), data.payload.end()) == std::string("B\x00\x01payload", 10));
}

BOOST_AUTO_TEST_CASE(xlogdata_with_empty_payload_is_allowed) {
    const Bytes bytes = xlogdata_frame("");
    const ServerFrame frame = parse_server_frame(bytes.vec());
    BOOST_REQUIRE(std::holds_alternative<XLogData>(frame));
    BOOST_TEST(std::get<XLogData>(frame).payload.empty());
    BOOST_TEST(std::get<XLogData>(frame).wal_end == 0x16'B374D900u);
}

BOOST_AUTO_TEST_CASE(keepalive_parses_every_field) {
    for (const std::uint8_t reply : {std::uint8_t{0}, std::uint8_t{1}}) {
        BOOST_TEST_CONTEXT("reply_requested " << int{reply}) {
            const Bytes bytes = keepalive_frame(reply);
            BOOST_REQUIRE(bytes.vec().size() == 18u);
            const ServerFrame frame = parse_server_frame(bytes.vec());
            BOOST_REQUIRE(std::holds_alternative<PrimaryKeepalive>(frame));
            const auto& keepalive = std::get<PrimaryKeepalive>(frame);
            BOOST_TEST(keepalive.wal_end == 0x1'0000'0002u);
            BOOST_TEST(keepalive.send_time_us == -42);
            BOOST_TEST(keepalive.reply_requested == (reply == 1));
        }
    }
}

BOOST_AUTO_TEST_CASE(status_update_encodes_every_byte) {
    const auto frame = encode_status_update(0x0102030405060708, 0x1112131415161718, 0x2122232425262728,
                                            -2 /* 0xFF..FE */, true);
    const std::vector<unsigned char> expected = {
        'r',                                             //
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // write
        0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,  // flush
        0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,  // apply
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,  // client time
        0x01,                                            // reply requested
    };
    BOOST_REQUIRE(frame.size() == 34u);
    BOOST_REQUIRE(expected.size() == 34u);
    for (std::size_t i = 0; i < frame.size(); ++i) {
        BOOST_TEST(static_cast<unsigned char>(frame[i]) == expected[i], "byte " << i);
    }
}

BOOST_AUTO_TEST_CASE(status_update_without_reply_request) {
    const auto frame = encode_status_update(0x16'B374D848, 0x16'B374D848, 0, 0, false);
    BOOST_TEST(frame[0] == 'r');
    BOOST_TEST(frame[4] == '\x16');
    BOOST_TEST(static_cast<unsigned char>(frame[5]) == 0xB3u);
    BOOST_TEST(static_cast<unsigned char>(frame[8]) == 0x48u);
    BOOST_TEST(frame[12] == '\x16');
    for (std::size_t i = 17; i < 34; ++i) BOOST_TEST(frame[i] == '\0', "byte " << i);
}

BOOST_AUTO_TEST_CASE(short_xlogdata_is_rejected) {
    const std::vector<char> full = xlogdata_frame("").vec();
    for (std::size_t length = 1; length < full.size(); ++length) {
        const std::vector<char> prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
        const std::string error = error_of(prefix);
        BOOST_TEST(error.rfind("walsender frame 'w' of " + std::to_string(length) + " bytes", 0) == 0u, error);
    }
}

BOOST_AUTO_TEST_CASE(keepalive_of_wrong_size_is_rejected) {
    const std::vector<char> full = keepalive_frame(0).vec();
    for (std::size_t length = 1; length < full.size(); ++length) {
        const std::vector<char> prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
        BOOST_TEST(error_of(prefix) == "walsender frame 'k' of " + std::to_string(length) +
                                           " bytes: primary keepalive must be exactly 18 bytes");
    }
    std::vector<char> longer = full;
    longer.push_back('\0');
    BOOST_TEST(error_of(longer) == "walsender frame 'k' of 19 bytes: primary keepalive must be exactly 18 bytes");
}

BOOST_AUTO_TEST_CASE(empty_and_unknown_frames_are_rejected) {
    BOOST_TEST(error_of({}) == "walsender frame of 0 bytes: empty frame");
    BOOST_TEST(error_of({'r', '\0'}) == "walsender frame 'r' of 2 bytes: unknown frame type");
    BOOST_TEST(error_of({'\x01'}) == "walsender frame 0x01 of 1 bytes: unknown frame type");
}
