#pragma once

#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/replication/slot_port.hpp"
#include "outbox/replication/source_state.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::pipeline {

// What a connection does with the replication slot before it streams: use the slot that is
// there, create one, or refuse, and, under exactly-once, whether a slot this start created may
// stand against what the offsets topic records. The server is reached through a SlotPort.
class SlotStart {
public:
    explicit SlotStart(const config::Config& config);

    // The slot is looked up, or created when missing and allowed; `state` gets its confirmed
    // position. Throws DefiniteError when the slot is refused.
    void prepare(replication::SlotPort& slots, replication::SourceState& state);
    // Exactly-once, after START_REPLICATION: the offsets topic records `stored` for this source.
    // Why a slot created while that position's slot was gone must be dropped again; nothing when
    // it may stay (slot.recreate.when.lost only logs the gap).
    std::optional<std::string> gap(Lsn stored, replication::SourceState& state);

private:
    const config::Config& config_;
};

}  // namespace outbox::pipeline
