#pragma once

#include <optional>
#include <span>

#include "outbox/util/lsn.hpp"

namespace outbox::replication {

// The port through which the pipeline's decisions read one replication connection's stream
// (walsender frames: XLogData and keepalives) and answer it (standby status updates).
// replication/replication_stream.cpp is libpq and the socket behind it; tests/simulation has a
// simulated walsender behind it.
class WalStream {
public:
    virtual ~WalStream() = default;

    // The next frame already received, or nullopt when nothing is waiting. The span stays valid
    // until the next call. Throws TransientError when the connection is lost and DefiniteError
    // when the server ends the stream with an error.
    virtual std::optional<std::span<const char>> next_frame() = 0;
    virtual void send_status_update(Lsn written, Lsn flushed, bool reply_requested) = 0;
    // Pushes out what a non-blocking write left behind.
    virtual void flush_output() = 0;
    // Throws TransientError if the server has closed the connection, reading nothing.
    virtual void check_connected() const = 0;
    // Ends the stream cleanly after the last status update.
    virtual void finish() = 0;
};

}  // namespace outbox::replication
