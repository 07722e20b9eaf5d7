#pragma once

#include <functional>
#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/replication/slot_port.hpp"
#include "outbox/replication/source_state.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::pipeline {

// What a connection does with the replication slot before it streams: use the slot that is
// there, create one, or refuse. Under exactly-once the refusal rests on what the offsets topic
// records for this source, read before a slot is created, never on this process's memory: every
// process, restart and connection reaches the same answer, and the slot that would hide the gap
// is not created. Only a slot this very connection attempt created is ever dropped. The server
// is reached through a SlotPort.
class SlotStart {
public:
    explicit SlotStart(const config::Config& config);

    // The slot is looked up, or created when missing and allowed; `state` gets its confirmed
    // position. Under exactly-once `read_stored` reads the offsets topic's position for this
    // source (0: none) before a slot is created. Throws DefiniteError when the slot is refused.
    void prepare(replication::SlotPort& slots, replication::SourceState& state, const std::function<Lsn()>& read_stored);
    // Exactly-once, after START_REPLICATION: the offsets topic records `stored` for this source.
    // Why a slot created while that position's slot was gone must be dropped again; nothing when
    // it may stay (slot.recreate.when.lost only logs the gap).
    std::optional<std::string> gap(Lsn stored, const replication::SourceState& state);

private:
    void refuse_lost(const replication::SourceState& state) const;
    void refuse_new(Lsn stored) const;

    const config::Config& config_;
    const bool exactly_once_;
    bool created_ = false;  // by this connection attempt
};

}  // namespace outbox::pipeline
