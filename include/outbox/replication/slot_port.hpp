#pragma once

#include <optional>

#include "outbox/util/lsn.hpp"

namespace outbox::replication {

// The replication slot as the start of a connection meets it: looked up, created or dropped,
// with the server's answers. The decisions (create or refuse, drop or keep) are the core's
// (pipeline/stream_core.cpp); replication/source_setup.cpp is libpq behind the look-up and the
// creation, pipeline.cpp behind the drop, and tests/simulation a simulated server behind all.
class SlotPort {
public:
    enum class Creation {
        created,         // this call created it
        already_exists,  // another process (the other router of a pair) created it first
    };

    virtual ~SlotPort() = default;
    // The slot's confirmed position, checked as one the router can stream from (pgoutput, this
    // database, not invalidated: DefiniteError otherwise); nothing when there is no slot.
    virtual std::optional<Lsn> look_up_slot() = 0;
    // CREATE_REPLICATION_SLOT. Throws DefiniteError or TransientError as a statement does.
    virtual Creation create_slot() = 0;
    // Ends this connection's stream and drops the slot. Throws TransientError when it cannot
    // (the server is away, the slot stays busy, a stop was requested).
    virtual void drop_slot() = 0;
};

}  // namespace outbox::replication
