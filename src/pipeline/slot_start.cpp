#include "outbox/pipeline/slot_start.hpp"

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {

SlotStart::SlotStart(const config::Config& config)
    : config_(config), exactly_once_(config.delivery_guarantee == config::DeliveryGuarantee::exactly_once) {}

void SlotStart::prepare(replication::SlotPort& slots, replication::SourceState& state,
                        const std::function<Lsn()>& read_stored) {
    const auto& slot = config_.postgres.slot_name;
    created_ = false;
    auto confirmed = slots.look_up_slot();
    if (!confirmed) {
        if (state.slot_seen) {
            refuse_lost(state);
        } else if (exactly_once_) {
            // Read before creating: whatever this process knows, every process, restart and
            // connection reads the same record, so each reaches the same answer, and the slot
            // that would hide the gap is never created.
            if (const Lsn stored = read_stored(); stored != 0) refuse_new(stored);
        }
        if (slots.create_slot() == replication::SlotPort::Creation::created)
            created_ = true;
        else
            log::info("postgres: replication slot \"" + slot + "\" was created a moment ago by another process (the "
                      "other router of a pair?); using it");
        confirmed = slots.look_up_slot();
        if (!confirmed)
            throw DefiniteError("postgres: replication slot \"" + slot + "\" disappeared right after creation");
    }
    state.slot_confirmed_lsn = *confirmed;
    state.slot_seen = true;
}

void SlotStart::refuse_lost(const replication::SourceState& state) const {
    const auto& slot = config_.postgres.slot_name;
    const bool other_history =
        state.previous_system_id != state.identity.system_id || state.previous_timeline != state.identity.timeline;
    const std::string since = "events committed after " + format_lsn(state.slot_confirmed_lsn) +
                              " (the slot's confirmed position when this router last connected) may not be in Kafka";
    std::string lost;
    if (other_history)
        lost = "postgres: replication slot \"" + slot + "\" is not on this server, which took over from the one "
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

// Exactly-once, no slot: the offsets topic records a position, so a slot served it and is gone
// (dropped, or lost in a failover), and a new one would start at the present.
void SlotStart::refuse_new(Lsn stored) const {
    const std::string window = "transactions committed after " + format_lsn(stored) + " may not be in Kafka";
    if (!config_.postgres.slot_recreate_when_lost)
        throw DefiniteError("postgres: replication slot \"" + config_.postgres.slot_name +
                            "\" does not exist, but the offsets topic \"" + config_.offsets_topic +
                            "\" says events were published up to " + format_lsn(stored) +
                            " from a slot that is gone: " + window +
                            ". Re-publish them from the outbox (outbox-router replay), then start the router with "
                            "slot.recreate.when.lost set (no slot was created)");
    log::error("postgres: replication slot \"" + config_.postgres.slot_name + "\" is gone, and the offsets topic \"" +
               config_.offsets_topic + "\" says events were published up to " + format_lsn(stored) + ": " + window +
               "; creating a new slot, which starts now (slot.recreate.when.lost): re-publish them from the outbox "
               "(outbox-router replay)");
}

// The slot was read as missing before this attempt created it, with nothing in the offsets
// topic; if the topic records a position now, something published from another slot of that
// name in between (created and lost within this attempt's set-up). Only a slot this very attempt
// created is ever dropped: one that was there, or that another process created, may hold the
// events of a router that streams from it.
std::optional<std::string> SlotStart::gap(Lsn stored, const replication::SourceState& state) {
    if (!std::exchange(created_, false) || stored == 0 || stored >= state.slot_confirmed_lsn) return std::nullopt;
    const std::string window = "transactions committed after " + format_lsn(stored) + " and before " +
                               format_lsn(state.slot_confirmed_lsn) + " may not be in Kafka";
    if (!config_.postgres.slot_recreate_when_lost)
        return std::string("postgres: replication slot \"" + config_.postgres.slot_name +
                           "\" is new, but the offsets topic \"" + config_.offsets_topic +
                           "\" says events were published up to " + format_lsn(stored) +
                           " from a slot that is gone: " + window +
                           ". Re-publish them from the outbox (outbox-router replay), then start the router with "
                           "slot.recreate.when.lost set");
    log::error("postgres: the new replication slot starts at " + format_lsn(state.slot_confirmed_lsn) +
               " (slot.recreate.when.lost): " + window + "; re-publish them from the outbox (outbox-router replay)");
    return std::nullopt;
}

}  // namespace outbox::pipeline
