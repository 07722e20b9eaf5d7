#include "outbox/replication/walsender_frames.hpp"

#include <bit>
#include <cstring>
#include <string>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/util/errors.hpp"

// Layouts from PostgreSQL's "Streaming Replication Protocol" docs and walsender.c
// (WalSndPrepareWrite/WalSndWriteData and WalSndKeepalive for what we receive,
// ProcessStandbyReplyMessage for what we send).

namespace outbox::replication {
namespace {

constexpr std::size_t kXLogDataHeaderSize = 1 + 8 + 8 + 8;
constexpr std::size_t kKeepaliveSize = 1 + 8 + 8 + 1;

// memcpy instead of casting the buffer: frame fields are not aligned. One load and a byte swap.
std::uint64_t read_be64(std::span<const char> bytes, std::size_t offset) {
    std::uint64_t value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    if constexpr (std::endian::native == std::endian::little) value = __builtin_bswap64(value);
    return value;
}

void write_be64(std::span<char> out, std::size_t offset, std::uint64_t value) {
    for (std::size_t i = 0; i < 8; ++i) out[offset + i] = static_cast<char>(value >> (56 - 8 * i));
}

[[noreturn]] void fail(std::span<const char> bytes, const char* what) {
    throw ProtocolError("walsender frame " + message_type_text(bytes[0]) + " of " + std::to_string(bytes.size()) +
                        " bytes: " + what);
}

}  // namespace

ServerFrame parse_server_frame(std::span<const char> bytes) {
    if (bytes.empty()) throw ProtocolError("walsender frame of 0 bytes: empty frame");
    switch (bytes[0]) {
        case 'w': {
            if (bytes.size() < kXLogDataHeaderSize) fail(bytes, "XLogData needs at least 25 bytes");
            XLogData data;
            data.data_start = read_be64(bytes, 1);
            data.wal_end = read_be64(bytes, 9);
            data.send_time_us = static_cast<std::int64_t>(read_be64(bytes, 17));
            data.payload = bytes.subspan(kXLogDataHeaderSize);
            return data;
        }
        case 'k': {
            if (bytes.size() != kKeepaliveSize) fail(bytes, "primary keepalive must be exactly 18 bytes");
            PrimaryKeepalive keepalive;
            keepalive.wal_end = read_be64(bytes, 1);
            keepalive.send_time_us = static_cast<std::int64_t>(read_be64(bytes, 9));
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
    write_be64(out, 1, write);
    write_be64(out, 9, flush);
    write_be64(out, 17, apply);
    write_be64(out, 25, static_cast<std::uint64_t>(client_time_us));
    out[33] = reply_requested ? 1 : 0;
    return out;
}

}  // namespace outbox::replication
