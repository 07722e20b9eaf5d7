#pragma once

// The CopyBoth sub-messages of the streaming replication protocol: what the walsender sends
// ('w' XLogData, 'k' primary keepalive) and what the client answers ('r' standby status update).
// Pure codec, no I/O.

#include <array>
#include <cstdint>
#include <span>
#include <variant>

#include "outbox/util/lsn.hpp"

namespace outbox::replication {

struct XLogData {
    Lsn data_start = 0;
    Lsn wal_end = 0;
    std::int64_t send_time_us = 0;
    std::span<const char> payload;  // one pgoutput message; views the input buffer
};

struct PrimaryKeepalive {
    Lsn wal_end = 0;
    std::int64_t send_time_us = 0;
    bool reply_requested = false;
};

using ServerFrame = std::variant<XLogData, PrimaryKeepalive>;

// Throws ProtocolError (type byte and length in the message) on a short or unknown frame.
ServerFrame parse_server_frame(std::span<const char> bytes);

constexpr std::size_t kStatusUpdateSize = 34;

// 'r' with write, flush and apply positions, the client clock (µs since 2000-01-01) and the
// reply-requested flag.
std::array<char, kStatusUpdateSize> encode_status_update(Lsn write, Lsn flush, Lsn apply,
                                                         std::int64_t client_time_us,
                                                         bool reply_requested);

}  // namespace outbox::replication
