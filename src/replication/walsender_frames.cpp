#include "outbox/replication/walsender_frames.hpp"

#include <bit>
#include <cstring>
#include <string>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/util/big_endian.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/type_byte.hpp"

// Layouts from PostgreSQL's "Streaming Replication Protocol" docs and walsender.c
// (WalSndPrepareWrite/WalSndWriteData and WalSndKeepalive for what we receive,
// ProcessStandbyReplyMessage for what we send).

namespace outbox::replication {
namespace {

constexpr std::size_t kXLogDataHeaderSize = 1 + 8 + 8 + 8;
constexpr std::size_t kKeepaliveSize = 1 + 8 + 8 + 1;

[[noreturn]] void fail(std::span<const char> bytes, const char* what) {
    throw ProtocolError("walsender frame " + type_byte_text(bytes[0]) + " of " + std::to_string(bytes.size()) +
                        " bytes: " + what);
}

}  // namespace

ServerFrame parse_server_frame(std::span<const char> bytes) {
    if (bytes.empty()) throw ProtocolError("walsender frame of 0 bytes: empty frame");
    switch (bytes[0]) {
        case 'w': {
            if (bytes.size() < kXLogDataHeaderSize) fail(bytes, "XLogData needs at least 25 bytes");
            XLogData data;
            data.data_start = load_be<std::uint64_t>(bytes.data() + 1);
            data.wal_end = load_be<std::uint64_t>(bytes.data() + 9);
            data.send_time_us = static_cast<std::int64_t>(load_be<std::uint64_t>(bytes.data() + 17));
            data.payload = bytes.subspan(kXLogDataHeaderSize);
            return data;
        }
        case 'k': {
            if (bytes.size() != kKeepaliveSize) fail(bytes, "primary keepalive must be exactly 18 bytes");
            PrimaryKeepalive keepalive;
            keepalive.wal_end = load_be<std::uint64_t>(bytes.data() + 1);
            keepalive.send_time_us = static_cast<std::int64_t>(load_be<std::uint64_t>(bytes.data() + 9));
            keepalive.reply_requested = bytes[17] != 0;
            return keepalive;
        }
        default:
            fail(bytes, "unknown frame type");
    }
}

std::array<char, kStatusUpdateSize> encode_status_update(Lsn write, Lsn flush, Lsn apply,
                                                         std::int64_t client_time_us,
                                                         bool reply_requested) {
    std::array<char, kStatusUpdateSize> out{};
    out[0] = 'r';
    store_be<std::uint64_t>(out.data() + 1, write);
    store_be<std::uint64_t>(out.data() + 9, flush);
    store_be<std::uint64_t>(out.data() + 17, apply);
    store_be<std::uint64_t>(out.data() + 25, static_cast<std::uint64_t>(client_time_us));
    out[33] = reply_requested ? 1 : 0;
    return out;
}

}  // namespace outbox::replication
