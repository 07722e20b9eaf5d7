#include "outbox/pipeline/slot_start.hpp"

#include <utility>

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {

SlotStart::SlotStart(const config::Config& config) : config_(config) {}

void SlotStart::prepare(replication::SlotPort& slots, replication::SourceState& state) {
    const auto& slot = config_.postgres.slot_name;
    auto confirmed = slots.look_up_slot();
    if (!confirmed) {
        if (state.slot_seen) {
            const bool other_history = state.previous_system_id != state.identity.system_id ||
                                       state.previous_timeline != state.identity.timeline;
            const std::string since = "events committed after " + format_lsn(state.slot_confirmed_lsn) +
                                      " (the slot's confirmed position when this router last connected) may not be in "
                                      "Kafka";
            std::string lost;
            if (other_history)
                lost =
                    "postgres: replication slot \"" + slot + "\" is not on this server, which took over from the one "
                    "the router streamed from (system " + state.identity.system_id + ", timeline " +
                    std::to_string(state.identity.timeline) + "; before: system " + state.previous_system_id +
                    ", timeline " + std::to_string(state.previous_timeline) +
                    "): a failover to a standby the slot was not synchronized to (slots reach standbys only on "
                    "PostgreSQL 17 and later, with slot.failover and sync_replication_slots = on there). " + since;
            else
                lost = "postgres: replication slot \"" + slot +
                       "\" was dropped while the router was running; the WAL it held is gone, so " + since;
            if (!config_.postgres.slot_recreate_when_lost)
                throw DefiniteError(lost + ". Re-publish them from the outbox (outbox-router replay), then restart the "
                                           "router to create a new slot (or set slot.recreate.when.lost)");
            log::error(lost + "; creating a new slot, which starts now (slot.recreate.when.lost): re-publish them "
                              "from the outbox (outbox-router replay)");
        }
        slots.create_slot();
        state.slot_created = true;
        confirmed = slots.look_up_slot();
        if (!confirmed)
            throw DefiniteError("postgres: replication slot \"" + slot + "\" disappeared right after creation");
    }
    state.slot_confirmed_lsn = *confirmed;
    state.slot_seen = true;
}

// A slot this start had to create while the offsets topic records a position: the slot that
// served that position is gone (dropped, or lost in a failover) and the new one starts at the
// present, so transactions committed in between may never reach Kafka. Checked once per created
// slot: later, the slot's confirmed position legitimately passes the stored one (transactions
// without outbox events are confirmed without a Kafka transaction), and a reconnect must not take
// that for a gap.
std::optional<std::string> SlotStart::gap(Lsn stored, replication::SourceState& state) {
    if (!std::exchange(state.slot_created, false) || stored == 0 || stored >= state.slot_confirmed_lsn) return std::nullopt;
    const std::string window = "transactions committed after " + format_lsn(stored) + " and before " +
                               format_lsn(state.slot_confirmed_lsn) + " may not be in Kafka";
    if (!config_.postgres.slot_recreate_when_lost)
        return std::string("postgres: replication slot \"" + config_.postgres.slot_name +
                           "\" is new, but the offsets topic \"" + config_.offsets_topic +
                           "\" says events were published up to " + format_lsn(stored) +
                           " from a slot that is gone: " + window +
                           ". Re-publish them from the outbox (outbox-router replay), then start the router with "
                           "slot.recreate.when.lost set (the new slot was dropped again)");
    log::error("postgres: the new replication slot starts at " + format_lsn(state.slot_confirmed_lsn) +
               " (slot.recreate.when.lost): " + window + "; re-publish them from the outbox (outbox-router replay)");
    return std::nullopt;
}

}  // namespace outbox::pipeline
