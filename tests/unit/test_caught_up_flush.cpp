#define BOOST_TEST_MODULE caught_up_flush
#include <boost/test/unit_test.hpp>

#include "outbox/pipeline/caught_up_flush.hpp"

using outbox::pipeline::CaughtUpFlush;
using namespace std::chrono_literals;

namespace {
const CaughtUpFlush::Clock::time_point t0{std::chrono::seconds(1000)};
}

BOOST_AUTO_TEST_CASE(nothing_handed_over_is_never_due) {
    CaughtUpFlush flush;
    BOOST_TEST(!flush.lingering());
    BOOST_TEST(!flush.due(t0));
}

BOOST_AUTO_TEST_CASE(one_flush_at_a_time_until_its_records_are_reported) {
    CaughtUpFlush flush;
    flush.handed_over();
    flush.handed_over();
    BOOST_TEST(flush.due(t0));
    flush.flushing(t0);
    flush.flushed(false);
    flush.handed_over();  // arrives while the first two are on their way
    BOOST_TEST(!flush.due(t0 + 1ms));
    flush.reported(t0 + 2ms);
    BOOST_TEST(!flush.due(t0 + 3ms));
    flush.reported(t0 + 4ms);  // the round is complete: 4 ms
    BOOST_TEST(flush.due(t0 + 4ms));
}

BOOST_AUTO_TEST_CASE(a_flush_is_forced_after_twice_the_last_round_trip_or_the_recheck_time) {
    CaughtUpFlush flush;
    flush.handed_over();
    flush.flushing(t0);
    flush.flushed(false);
    flush.reported(t0 + 20ms);  // round trip 20 ms
    flush.handed_over();
    flush.flushing(t0 + 20ms);
    flush.flushed(false);
    flush.handed_over();  // missed that flush, and its report never comes
    BOOST_TEST(!flush.due(t0 + 59ms));
    BOOST_TEST(flush.due(t0 + 60ms));
    // The forced flush extends the round: the next round trip is measured from t0 + 20 ms.
    flush.flushing(t0 + 60ms);
    flush.reported(t0 + 61ms);
    flush.reported(t0 + 62ms);
    flush.handed_over();
    BOOST_TEST(flush.due(t0 + 62ms));  // the round is complete (42 ms): the next flush may go
    flush.flushing(t0 + 62ms);
    flush.handed_over();
    BOOST_TEST(!flush.due(t0 + 62ms + 83ms));  // forced after 2 × 42 ms
    BOOST_TEST(flush.due(t0 + 62ms + 84ms));

    CaughtUpFlush fresh;  // no round trip measured yet: kRecheck
    fresh.handed_over();
    fresh.flushing(t0);
    fresh.flushed(false);
    fresh.handed_over();
    BOOST_TEST(!fresh.due(t0 + CaughtUpFlush::kRecheck - 1ms));
    BOOST_TEST(fresh.due(t0 + CaughtUpFlush::kRecheck));
}

BOOST_AUTO_TEST_CASE(a_flush_that_sent_everything_leaves_nothing_lingering_and_reset_forgets_the_round) {
    CaughtUpFlush flush;
    flush.handed_over();
    flush.flushing(t0);
    flush.flushed(true);
    BOOST_TEST(!flush.lingering());
    BOOST_TEST(!flush.due(t0 + 1s));
    flush.handed_over();
    flush.flushing(t0 + 1s);
    flush.reset();  // the producer was replaced before reporting
    flush.handed_over();
    BOOST_TEST(flush.due(t0 + 1s));
}
