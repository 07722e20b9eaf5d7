#pragma once

#include "outbox/replication/replication_stream.hpp"

namespace outbox::test {

// A backlog read as the router reads it, for the transport tests of the replication stream.
struct QueuedBacklog {
    int inserts = 0;
    int frames = 0;
    int reads = 0;
};

// Waits until more than 64 KiB of the backlog is queued on the stream's socket, then reads it
// (receive() as when draining a backlog, and every frame each read brought) until `commits`
// commits have arrived. The walsender sends nothing more once a backlog is out (its keepalive
// comes after half of wal_sender_timeout), so a read that left the backlog's end anywhere the
// socket's readiness does not announce fails the test after 10 s of silence.
QueuedBacklog read_queued_backlog(replication::ReplicationStream& stream, int commits);

}  // namespace outbox::test
