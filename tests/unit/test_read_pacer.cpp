#define BOOST_TEST_MODULE read_pacer
#include <boost/test/unit_test.hpp>

#include <chrono>

#include "outbox/replication/read_pacer.hpp"

using outbox::replication::ReadPacer;

BOOST_AUTO_TEST_CASE(starts_at_the_minimum) {
    const ReadPacer pacer;
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMinInterval.count());
}

BOOST_AUTO_TEST_CASE(small_reads_while_draining_a_backlog_lengthen_the_wait_up_to_the_maximum) {
    ReadPacer pacer;
    pacer.after_read(2048, true);
    BOOST_TEST(pacer.interval().count() == 62);  // 50 us * 5/4, in whole microseconds
    pacer.after_read(2048, true);
    BOOST_TEST(pacer.interval().count() == 77);
    for (int i = 0; i < 50; ++i) pacer.after_read(0, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMaxInterval.count());
}

BOOST_AUTO_TEST_CASE(reads_that_nearly_fill_the_buffer_shorten_it_down_to_the_minimum) {
    ReadPacer pacer;
    for (int i = 0; i < 50; ++i) pacer.after_read(100, true);
    pacer.after_read(ReadPacer::kFullRead, true);
    BOOST_TEST(pacer.interval().count() == 750);
    pacer.after_read(16 * 1024, true);
    BOOST_TEST(pacer.interval().count() == 562);
    for (int i = 0; i < 50; ++i) pacer.after_read(16 * 1024, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMinInterval.count());
}

BOOST_AUTO_TEST_CASE(reads_between_small_and_full_keep_the_wait) {
    ReadPacer pacer;
    for (int i = 0; i < 4; ++i) pacer.after_read(1024, true);
    const auto settled = pacer.interval();
    BOOST_TEST(settled.count() > ReadPacer::kMinInterval.count());
    pacer.after_read(ReadPacer::kSmallRead, true);
    pacer.after_read(ReadPacer::kFullRead - 1, true);
    BOOST_TEST(pacer.interval().count() == settled.count());
}

BOOST_AUTO_TEST_CASE(caught_up_the_wait_returns_to_the_minimum_at_once) {
    ReadPacer pacer;
    for (int i = 0; i < 50; ++i) pacer.after_read(100, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMaxInterval.count());
    pacer.after_read(100, false);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMinInterval.count());
}

namespace {
constexpr std::size_t kTrickle = 4 * 1024;
constexpr std::size_t kFull = 16 * 1024;

// Three reads that bring a trickle lengthen the wait 50 -> 62 -> 77 -> 96 us.
void trickle_three_times(ReadPacer& pacer) {
    for (unsigned i = 0; i < ReadPacer::kTrickleReadsForFloor; ++i) pacer.after_read(kTrickle, true);
}
}  // namespace

BOOST_AUTO_TEST_CASE(the_wait_at_which_reads_turn_full_after_a_trickle_becomes_the_floor) {
    ReadPacer pacer;
    trickle_three_times(pacer);
    BOOST_TEST(pacer.interval().count() == 96);
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == 96);
    for (int i = 0; i < 20; ++i) pacer.after_read(kFull, true);
    BOOST_TEST(pacer.interval().count() == 96);  // without the floor: back at 50 us
}

BOOST_AUTO_TEST_CASE(fewer_trickle_reads_than_needed_set_no_floor) {
    ReadPacer pacer;
    pacer.after_read(kTrickle, true);
    pacer.after_read(kTrickle, true);
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == ReadPacer::kMinInterval.count());
    BOOST_TEST(pacer.interval().count() == 57);  // 77 us * 3/4
}

BOOST_AUTO_TEST_CASE(a_silent_gap_between_bursts_sets_no_floor) {
    ReadPacer pacer;
    pacer.after_read(kTrickle, true);  // the tail of a burst
    for (int i = 0; i < 6; ++i) pacer.after_read(0, true);
    pacer.after_read(kTrickle, true);
    pacer.after_read(kTrickle, true);  // the head of the next one
    const auto lengthened = pacer.interval();
    BOOST_TEST(lengthened.count() > 96);
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == ReadPacer::kMinInterval.count());
    for (int i = 0; i < 20; ++i) pacer.after_read(kFull, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMinInterval.count());
}

BOOST_AUTO_TEST_CASE(the_floor_is_never_above_its_maximum) {
    ReadPacer pacer;
    for (int i = 0; i < 50; ++i) pacer.after_read(kTrickle, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMaxInterval.count());
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == ReadPacer::kMaxFloor.count());
    BOOST_TEST(pacer.interval().count() == 750);
    for (int i = 0; i < 20; ++i) pacer.after_read(kFull, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMaxFloor.count());
}

BOOST_AUTO_TEST_CASE(the_floor_is_forgotten_by_an_eighth_every_so_many_full_reads) {
    ReadPacer pacer;
    trickle_three_times(pacer);
    for (unsigned i = 1; i < ReadPacer::kForgetFloorAfter; ++i) pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == 96);
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == 84);
    BOOST_TEST(pacer.interval().count() == 84);
    pacer.after_read(kTrickle, true);  // one short read neither sets a floor nor restarts the count
    for (unsigned i = 0; i < ReadPacer::kForgetFloorAfter; ++i) pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == 73);
    for (int i = 0; i < 10 * static_cast<int>(ReadPacer::kForgetFloorAfter); ++i) pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == ReadPacer::kMinInterval.count());
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMinInterval.count());
}

BOOST_AUTO_TEST_CASE(caught_up_the_floor_is_dropped) {
    ReadPacer pacer;
    trickle_three_times(pacer);
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.floor().count() == 96);
    pacer.after_read(kFull, false);
    BOOST_TEST(pacer.floor().count() == ReadPacer::kMinInterval.count());
    pacer.after_read(kFull, true);
    BOOST_TEST(pacer.interval().count() == ReadPacer::kMinInterval.count());
}

// Over GSSAPI encryption one PQconsumeInput call brings one packet, which the walsender makes of
// every message.
BOOST_AUTO_TEST_CASE(an_encrypted_read_goes_on_while_the_socket_holds_more_up_to_its_size) {
    constexpr std::size_t kPacket = 480;  // one event's message and the packet's overhead
    BOOST_TEST(ReadPacer::read_again(kPacket, 100 * kPacket));
    BOOST_TEST(ReadPacer::read_again(ReadPacer::kEncryptedRead - 1, kPacket));
    BOOST_TEST(!ReadPacer::read_again(ReadPacer::kEncryptedRead, kPacket));
    BOOST_TEST(!ReadPacer::read_again(kPacket, 0));  // the socket is empty: the read is over
}

// What the pacer is then told: the messages of a whole read, not of one packet.
BOOST_AUTO_TEST_CASE(a_backlog_read_packet_by_packet_would_slow_the_reader_to_its_maximum_wait) {
    constexpr std::size_t kMessage = 450;
    ReadPacer one_packet;
    for (int i = 0; i < 50; ++i) one_packet.after_read(kMessage, true);
    BOOST_TEST(one_packet.interval().count() == ReadPacer::kMaxInterval.count());

    ReadPacer whole_reads;
    std::size_t consumed = 0, read = 0;
    for (int i = 0; i < 50; ++i) {
        consumed = read = 0;
        do {
            consumed += kMessage + 30;
            read += kMessage;
        } while (ReadPacer::read_again(consumed, 1 << 20));
        whole_reads.after_read(read, true);
    }
    BOOST_TEST(read >= ReadPacer::kFullRead);
    BOOST_TEST(whole_reads.interval().count() == ReadPacer::kMinInterval.count());
}
