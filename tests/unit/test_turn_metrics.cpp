#define BOOST_TEST_MODULE turn_metrics
#include <boost/test/unit_test.hpp>

#include <string>

#include "outbox/pipeline/turn_metrics.hpp"

using outbox::observability::Metrics;
using outbox::pipeline::TurnMetrics;

BOOST_AUTO_TEST_CASE(nothing_is_visible_before_apply_and_everything_after) {
    Metrics metrics;
    TurnMetrics turn(metrics);
    auto& received = metrics.events_received.with({"public.outbox"});
    auto& published = metrics.events_published.with({"Order"});
    for (int i = 0; i < 5; ++i) {
        turn.count(received);
        turn.sent(100);
    }
    for (int i = 0; i < 3; ++i) {
        turn.settled(100);
        turn.count(published);
        turn.commit_to_ack(0.02);
    }
    BOOST_TEST(received.value() == 0u);
    BOOST_TEST(metrics.in_flight_messages.value() == 0);
    turn.apply();
    BOOST_TEST(received.value() == 5u);
    BOOST_TEST(published.value() == 3u);
    BOOST_TEST(metrics.in_flight_messages.value() == 2);
    BOOST_TEST(metrics.in_flight_bytes.value() == 200);
    BOOST_TEST(metrics.commit_to_ack_seconds.snapshot().cumulative.back() == 3u);
    BOOST_TEST(metrics.commit_to_ack_seconds.snapshot().sum == 0.06, boost::test_tools::tolerance(1e-12));
    turn.apply();  // nothing new: nothing counted twice
    BOOST_TEST(received.value() == 5u);
    BOOST_TEST(metrics.in_flight_messages.value() == 2);
}

BOOST_AUTO_TEST_CASE(interleaved_counters_and_observations_keep_their_own_counts) {
    Metrics metrics;
    TurnMetrics turn(metrics);
    auto& a = metrics.events_published.with({"a"});
    auto& b = metrics.events_published.with({"b"});
    const double latencies[] = {0.5, 0.5, 2, 0.5, 2, 2};
    for (int i = 0; i < 6; ++i) {
        turn.count(i % 3 == 0 ? b : a);
        turn.commit_to_ack(latencies[i]);
    }
    turn.apply();
    BOOST_TEST(a.value() == 4u);
    BOOST_TEST(b.value() == 2u);
    const auto histogram = metrics.commit_to_ack_seconds.snapshot();
    BOOST_TEST(histogram.cumulative.back() == 6u);
    BOOST_TEST(histogram.sum == 7.5, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(many_distinct_counters_in_one_turn_are_all_counted) {
    Metrics metrics;
    TurnMetrics turn(metrics);
    for (int round = 0; round < 3; ++round)
        for (int topic = 0; topic < 100; ++topic) turn.count(metrics.events_published.with({"t" + std::to_string(topic)}));
    turn.apply();
    for (int topic = 0; topic < 100; ++topic)
        BOOST_TEST(metrics.events_published.with({"t" + std::to_string(topic)}).value() == 3u);
}

BOOST_AUTO_TEST_CASE(clearing_in_flight_drops_what_was_pending) {
    Metrics metrics;
    TurnMetrics turn(metrics);
    turn.sent(10);
    turn.apply();
    turn.sent(10);
    turn.clear_in_flight();  // the producer was replaced: nothing it carried is in flight
    turn.apply();
    BOOST_TEST(metrics.in_flight_messages.value() == 0);
    BOOST_TEST(metrics.in_flight_bytes.value() == 0);
}
