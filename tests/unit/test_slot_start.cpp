#define BOOST_TEST_MODULE unit_slot_start
#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/pipeline/slot_start.hpp"
#include "outbox/util/errors.hpp"

using outbox::Lsn;
using outbox::pipeline::SlotStart;
using outbox::replication::SlotPort;
using outbox::replication::SourceState;

namespace {

// The server's slot as a connection meets it; counts what was asked of it.
struct FakeSlots final : SlotPort {
    std::optional<Lsn> slot;
    bool other_creates_first = false;  // the other router of a pair wins the race
    Lsn created_at = 0x5000;
    int creations = 0, drops = 0;

    std::optional<Lsn> look_up_slot() override { return slot; }
    Creation create_slot() override {
        ++creations;
        if (other_creates_first) slot = created_at;
        if (slot) return Creation::already_exists;
        slot = created_at;
        return Creation::created;
    }
    void drop_slot() override {
        ++drops;
        slot.reset();
    }
};

outbox::config::Config config(bool exactly_once, bool recreate = false) {
    std::string yaml = "postgres:\n  conninfo: \"host=x\"\n  table.include.list: public.outbox\n";
    if (recreate) yaml += "  slot.recreate.when.lost: true\n";
    yaml += "kafka:\n  bootstrap.servers: \"k:9092\"\n";
    if (exactly_once) yaml += "delivery.guarantee: exactly-once\n";
    return outbox::config::parse_config(yaml, "test.yaml");
}

SourceState source() {
    SourceState state;
    state.identity = {"7300000000000000001", 1, 0x9000, "app"};
    // As IDENTIFY_SYSTEM leaves it on a connection to the same server as the one before.
    state.previous_system_id = state.identity.system_id;
    state.previous_timeline = state.identity.timeline;
    return state;
}

std::string refusal(SlotStart& start, FakeSlots& slots, SourceState& state, Lsn stored) {
    try {
        start.prepare(slots, state, [stored] { return stored; });
    } catch (const outbox::DefiniteError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

// Defect 2: the refusal is decided from the offsets topic before anything is created, so a
// restart (a new SlotStart, a new SourceState) meets it again, whatever ended the last attempt.
BOOST_AUTO_TEST_CASE(no_slot_and_a_recorded_position_is_refused_without_creating_one_at_every_start) {
    const auto eos = config(true);
    FakeSlots slots;
    for (int start = 0; start < 2; ++start) {
        SlotStart slot_start(eos);
        auto state = source();
        const auto why = refusal(slot_start, slots, state, 0x3000);
        BOOST_TEST(why.find("does not exist, but the offsets topic") != std::string::npos, why);
        BOOST_TEST(why.find("0/3000") != std::string::npos, why);
    }
    BOOST_TEST(slots.creations == 0);
}

BOOST_AUTO_TEST_CASE(no_slot_and_nothing_recorded_creates_one) {
    const auto eos = config(true);
    FakeSlots slots;
    SlotStart slot_start(eos);
    auto state = source();
    BOOST_TEST(refusal(slot_start, slots, state, 0).empty());
    BOOST_TEST(slots.creations == 1);
    BOOST_TEST(state.slot_confirmed_lsn == 0x5000u);
    BOOST_TEST(state.slot_seen);
    // Nothing published meanwhile: the new slot stays.
    BOOST_TEST(!slot_start.gap(0, state));
}

// Between the read and the creation another slot of the name published and was lost: only the
// slot this very attempt created is to be dropped.
BOOST_AUTO_TEST_CASE(a_slot_this_attempt_created_past_a_position_published_meanwhile_is_to_be_dropped) {
    const auto eos = config(true);
    FakeSlots slots;
    SlotStart slot_start(eos);
    auto state = source();
    BOOST_TEST(refusal(slot_start, slots, state, 0).empty());
    const auto why = slot_start.gap(0x4000, state);
    BOOST_REQUIRE(why);
    BOOST_TEST(why->find("is new, but the offsets topic") != std::string::npos, *why);
    // The next connection of the same process meets the slot as it is.
    BOOST_TEST(refusal(slot_start, slots, state, 0x4000).empty());
    BOOST_TEST(!slot_start.gap(0x4000, state));
}

// Defect 1: two routers started together; the one whose CREATE_REPLICATION_SLOT lost the race
// uses the slot, and taking over later (the active one confirmed past the offsets topic's
// position) is no gap.
BOOST_AUTO_TEST_CASE(a_slot_another_router_created_first_is_never_taken_for_this_attempts) {
    const auto eos = config(true);
    FakeSlots slots;
    slots.other_creates_first = true;
    SlotStart slot_start(eos);
    auto state = source();
    BOOST_TEST(refusal(slot_start, slots, state, 0).empty());
    BOOST_TEST(slots.creations == 1);
    state.slot_confirmed_lsn = 0x7000;  // the active router confirmed past the stored position
    BOOST_TEST(!slot_start.gap(0x6000, state));
    // Hours later, the take-over: a new connection finds the slot.
    BOOST_TEST(refusal(slot_start, slots, state, 0x6000).empty());
    BOOST_TEST(!slot_start.gap(0x6000, state));
    BOOST_TEST(slots.drops == 0);
}

BOOST_AUTO_TEST_CASE(slot_recreate_when_lost_creates_a_slot_despite_a_recorded_position) {
    const auto eos = config(true, true);
    FakeSlots slots;
    SlotStart slot_start(eos);
    auto state = source();
    BOOST_TEST(refusal(slot_start, slots, state, 0x3000).empty());
    BOOST_TEST(slots.creations == 1);
    BOOST_TEST(!slot_start.gap(0x3000, state));
}

// At-least-once nothing records progress but the slot: a process that saw it refuses its loss;
// the offsets topic is never read.
BOOST_AUTO_TEST_CASE(at_least_once_refuses_a_slot_this_process_saw_and_reads_no_offsets_topic) {
    const auto plain = config(false);
    FakeSlots slots;
    SlotStart slot_start(plain);
    auto state = source();
    bool read = false;
    slot_start.prepare(slots, state, [&] {
        read = true;
        return Lsn{0};
    });
    BOOST_TEST(!read);
    slots.slot.reset();
    const auto why = refusal(slot_start, slots, state, 0);
    BOOST_TEST(why.find("was dropped while the router was running") != std::string::npos, why);
    BOOST_TEST(slots.creations == 1);
}
