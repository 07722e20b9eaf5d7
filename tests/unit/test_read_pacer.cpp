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
