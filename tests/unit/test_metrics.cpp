#define BOOST_TEST_MODULE metrics
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <ctime>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>

#include "outbox/observability/endpoints.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/observability/progress_log.hpp"
#include "outbox/observability/registry.hpp"
#include "outbox/observability/slot_monitor.hpp"

using namespace outbox::observability;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(registry_renders_the_text_exposition_format_exactly) {
    Registry registry;
    auto& received = registry.counter_family("app_events_total", "Events by table.", {"table"});
    auto& confirmed = registry.counter("app_confirmed_total", "Confirmed \\ transactions\nsecond line.");
    auto& lsn = registry.gauge("app_lsn_bytes", "A position.");
    registry.gauge_function("app_computed", "Computed at scrape time.", [] { return std::int64_t{-7}; });
    auto& latency = registry.histogram("app_latency_seconds", "Latency.", {0.005, 0.25, 1, 2.5});

    received.with({"public.outbox"}).add(3);
    received.with({"a\"b\\c\nd"}).add();
    confirmed.add(2);
    lsn.set(0x16B374D848);
    latency.observe(0.001);
    latency.observe(0.25);  // on a bound: counted in that bucket ("le")
    latency.observe(3);

    BOOST_TEST(registry.render() ==
               "# HELP app_events_total Events by table.\n"
               "# TYPE app_events_total counter\n"
               "app_events_total{table=\"a\\\"b\\\\c\\nd\"} 1\n"
               "app_events_total{table=\"public.outbox\"} 3\n"
               "# HELP app_confirmed_total Confirmed \\\\ transactions\\nsecond line.\n"
               "# TYPE app_confirmed_total counter\n"
               "app_confirmed_total 2\n"
               "# HELP app_lsn_bytes A position.\n"
               "# TYPE app_lsn_bytes gauge\n"
               "app_lsn_bytes 97500059720\n"
               "# HELP app_computed Computed at scrape time.\n"
               "# TYPE app_computed gauge\n"
               "app_computed -7\n"
               "# HELP app_latency_seconds Latency.\n"
               "# TYPE app_latency_seconds histogram\n"
               "app_latency_seconds_bucket{le=\"0.005\"} 1\n"
               "app_latency_seconds_bucket{le=\"0.25\"} 2\n"
               "app_latency_seconds_bucket{le=\"1\"} 2\n"
               "app_latency_seconds_bucket{le=\"2.5\"} 2\n"
               "app_latency_seconds_bucket{le=\"+Inf\"} 3\n"
               "app_latency_seconds_sum 3.251\n"
               "app_latency_seconds_count 3\n");
}

BOOST_AUTO_TEST_CASE(a_labelled_family_without_children_renders_only_its_header) {
    Registry registry;
    registry.counter_family("app_skipped_total", "Skipped.", {"table", "reason"});
    BOOST_TEST(registry.render() == "# HELP app_skipped_total Skipped.\n# TYPE app_skipped_total counter\n");
}

BOOST_AUTO_TEST_CASE(family_children_are_stable_references_and_sum_to_the_total) {
    Registry registry;
    auto& family = registry.counter_family("app_total", "x", {"table", "reason"});
    Counter& update = family.with({"public.outbox", "update"});
    Counter& again = family.with({"public.outbox", "update"});
    BOOST_TEST(&update == &again);
    for (int i = 0; i < 50; ++i) family.with({"t" + std::to_string(i), "delete"}).add();  // rebalances the map
    update.add(5);
    BOOST_TEST(family.with({"public.outbox", "update"}).value() == 5u);
    BOOST_TEST(family.total() == 55u);
    BOOST_CHECK_THROW(family.with({"only-one"}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(names_are_checked) {
    Registry registry;
    BOOST_CHECK_THROW(registry.counter("9starts_with_digit", "x"), std::invalid_argument);
    BOOST_CHECK_THROW(registry.gauge("has-dash", "x"), std::invalid_argument);
    BOOST_CHECK_THROW(registry.counter_family("ok_total", "x", {"bad-label"}), std::invalid_argument);
    BOOST_CHECK_THROW(registry.counter_family("ok2_total", "x", {"__reserved"}), std::invalid_argument);
    registry.counter("app_total", "x");
    BOOST_CHECK_THROW(registry.gauge("app_total", "x"), std::invalid_argument);
    BOOST_CHECK_THROW(registry.histogram("app_h", "x", {1, 1}), std::invalid_argument);
    BOOST_CHECK_THROW(registry.histogram("app_h2", "x", {1, std::numeric_limits<double>::infinity()}),
                      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(histogram_buckets_are_inclusive_cumulative_and_ignore_nan) {
    Histogram histogram({0.001, 0.01, 0.1});
    histogram.observe(0.0005);
    histogram.observe(0.001);
    histogram.observe(0.002);
    histogram.observe(0.1);
    histogram.observe(7);
    histogram.observe(std::nan(""));
    const auto snapshot = histogram.snapshot();
    BOOST_TEST(snapshot.cumulative == (std::vector<std::uint64_t>{2, 3, 4, 5}), boost::test_tools::per_element());
    BOOST_TEST(snapshot.sum == 7.1035, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(counters_and_histograms_add_up_across_threads) {
    Counter counter;
    Histogram histogram({1});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 10000; ++i) {
                counter.add();
                histogram.observe(0.5);
            }
        });
    for (auto& thread : threads) thread.join();
    BOOST_TEST(counter.value() == 40000u);
    BOOST_TEST(histogram.snapshot().cumulative.back() == 40000u);
    BOOST_TEST(histogram.snapshot().sum == 20000.0);
}

BOOST_AUTO_TEST_CASE(router_metrics_use_prometheus_names) {
    Metrics metrics;
    metrics.events_received.with({"public.outbox"}).add(4);
    metrics.events_published.with({"outbox.event.Order"}).add(4);
    metrics.events_skipped.with({"public.outbox", "update"}).add();
    metrics.events_dead_lettered.with({"public.outbox", "outbox.dlq"}).add();
    metrics.commit_to_ack_seconds.observe(0.02);
    const std::string text = metrics.render();
    for (const char* line : {"outbox_router_events_received_total{table=\"public.outbox\"} 4\n",
                             "outbox_router_events_published_total{topic=\"outbox.event.Order\"} 4\n",
                             "outbox_router_events_skipped_total{table=\"public.outbox\",reason=\"update\"} 1\n",
                             "outbox_router_events_dead_lettered_total{table=\"public.outbox\",topic=\"outbox.dlq\"} 1\n",
                             "outbox_router_transactions_confirmed_total 0\n", "outbox_router_reconnects_total 0\n",
                             "outbox_router_producer_errors_total 0\n", "outbox_router_received_lsn_bytes 0\n",
                             "outbox_router_confirmed_lsn_bytes 0\n", "outbox_router_server_wal_lsn_bytes 0\n",
                             "outbox_router_lag_bytes 0\n", "outbox_router_slot_retained_wal_bytes 0\n",
                             "outbox_router_slot_confirmed_flush_lsn_bytes 0\n", "outbox_router_slot_active 0\n",
                             "outbox_router_slot_monitor_up 0\n", "outbox_router_in_flight_messages 0\n",
                             "outbox_router_in_flight_bytes 0\n", "outbox_router_streaming 0\n",
                             "outbox_router_ready 0\n", "outbox_router_schema_registry_unavailable_total 0\n",
                             "outbox_router_commit_to_ack_seconds_bucket{le=\"0.025\"} 1\n",
                             "outbox_router_commit_to_ack_seconds_bucket{le=\"0.01\"} 0\n",
                             "outbox_router_commit_to_ack_seconds_count 1\n"}) {
        BOOST_TEST(text.find(line) != std::string::npos, "missing: " << line);
    }
}

BOOST_AUTO_TEST_CASE(ready_follows_the_readiness_verdict_and_the_start_time_is_the_construction_time) {
    const auto before = std::time(nullptr);
    Metrics metrics;
    const auto after = std::time(nullptr);
    const std::string text = metrics.render();
    const std::string name = "\nprocess_start_time_seconds ";
    BOOST_REQUIRE(text.find(name) != std::string::npos);
    const auto started = std::stoll(text.substr(text.find(name) + name.size()));
    BOOST_TEST(started >= before);
    BOOST_TEST(started <= after);
    const auto registration = metrics.health.register_kafka_probe([] { return std::string(); });
    BOOST_TEST(metrics.render().find("outbox_router_ready 0\n") != std::string::npos);  // not streaming
    metrics.health.set_streaming(true);
    BOOST_TEST(metrics.render().find("outbox_router_ready 1\n") != std::string::npos);
    const auto unreachable = metrics.health.register_kafka_probe([] { return std::string("Local: Broker transport failure"); });
    BOOST_TEST(metrics.render().find("outbox_router_ready 0\n") != std::string::npos);
}

// /readyz says what ended the last connection while the router is not streaming.
BOOST_AUTO_TEST_CASE(readiness_names_what_ended_the_last_connection) {
    Health health;
    const auto registration = health.register_kafka_probe([] { return std::string(); });
    BOOST_TEST(health.readiness().detail == "postgres: not streaming\nkafka: reachable\n");
    health.set_interrupted_by("schema registry unreachable: http://registry:8081: HTTP 503");
    BOOST_TEST(health.readiness().detail ==
               "postgres: not streaming (schema registry unreachable: http://registry:8081: HTTP 503)\nkafka: reachable\n");
    health.set_streaming(true);
    BOOST_TEST(health.readiness().ok);
    BOOST_TEST(health.readiness().detail == "postgres: streaming\nkafka: reachable\n");
}

BOOST_AUTO_TEST_CASE(lag_is_the_server_position_minus_the_newest_confirmed_one) {
    Metrics metrics;
    BOOST_TEST(metrics.lag_bytes() == 0);
    metrics.server_wal_lsn.set(10'000);
    BOOST_TEST(metrics.lag_bytes() == 0);  // nothing confirmed known yet
    metrics.slot_confirmed_flush_lsn.set(9'000);
    BOOST_TEST(metrics.lag_bytes() == 1'000);
    metrics.confirmed_lsn.set(9'600);  // the router confirmed more than the slot showed at its last read
    BOOST_TEST(metrics.lag_bytes() == 400);
    metrics.confirmed_lsn.set(10'200);  // the monitor's server position is older than the confirmation
    BOOST_TEST(metrics.lag_bytes() == 0);
    BOOST_TEST(metrics.render().find("outbox_router_lag_bytes 0\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(liveness_fails_when_the_loop_stops_reporting_progress) {
    Health health(150ms);
    BOOST_TEST(health.liveness().ok);
    std::this_thread::sleep_for(250ms);
    const auto stalled = health.liveness();
    BOOST_TEST(!stalled.ok);
    BOOST_TEST(stalled.detail.starts_with("main loop: no progress for 0."));
    health.mark_progress();
    BOOST_TEST(health.liveness().ok);
}

// A wait outside the stream loop (set-up, the exactly-once start) is named, so that a probe that
// fails says what the router was waiting for.
BOOST_AUTO_TEST_CASE(liveness_names_what_a_set_up_wait_waits_for) {
    Health health(150ms);
    const auto before = health.progress_marks();
    health.set_waiting_for("Kafka: init_transactions");
    health.mark_progress();
    BOOST_TEST(health.progress_marks() == before + 1);
    BOOST_TEST(health.liveness().detail.find("(waiting for Kafka: init_transactions)") != std::string::npos,
               health.liveness().detail);
    std::this_thread::sleep_for(250ms);
    BOOST_TEST(!health.liveness().ok);
    BOOST_TEST(health.liveness().detail.find("(waiting for Kafka: init_transactions)") != std::string::npos);
    health.set_waiting_for("");
    BOOST_TEST(health.liveness().detail.find("waiting for") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(readiness_needs_streaming_and_a_reachable_kafka) {
    Health health;
    BOOST_TEST(!health.readiness().ok);
    BOOST_TEST(health.readiness().detail == "postgres: not streaming\nkafka: not checked yet\n");

    std::string kafka_problem = "Local: Broker transport failure";
    {
        const auto registration = health.register_kafka_probe([&] { return kafka_problem; });
        health.set_streaming(true);
        BOOST_TEST(!health.readiness().ok);
        BOOST_TEST(health.readiness().detail ==
                   "postgres: streaming\nkafka: unreachable: Local: Broker transport failure\n");
        kafka_problem.clear();
        BOOST_TEST(health.readiness().ok);
        BOOST_TEST(health.readiness().detail == "postgres: streaming\nkafka: reachable\n");
        health.set_streaming(false);
        BOOST_TEST(!health.readiness().ok);
        health.set_streaming(true);
    }
    // The registration is gone: the probe (and what it refers to) is never called again.
    BOOST_TEST(!health.readiness().ok);
    BOOST_TEST(health.readiness().detail == "postgres: streaming\nkafka: not checked yet\n");

    const auto throwing = health.register_kafka_probe([]() -> std::string { throw std::runtime_error("boom"); });
    BOOST_TEST(health.readiness().detail == "postgres: streaming\nkafka: unreachable: boom\n");
}

BOOST_AUTO_TEST_CASE(a_replaced_probe_registration_leaves_the_newer_probe_in_place) {
    Health health;
    health.set_streaming(true);
    std::optional<Health::ProbeRegistration> old_producer(health.register_kafka_probe([] { return std::string("old"); }));
    const auto new_producer = health.register_kafka_probe([] { return std::string(); });
    old_producer.reset();  // e.g. a replaced producer going away after its successor registered
    BOOST_TEST(health.readiness().ok);
    BOOST_TEST(health.readiness().detail == "postgres: streaming\nkafka: reachable\n");
}

BOOST_AUTO_TEST_CASE(endpoints_map_paths_and_methods_to_responses) {
    Metrics metrics;
    const auto probe = metrics.health.register_kafka_probe([] { return std::string(); });

    const auto scrape = handle_request(metrics, "GET", "/metrics");
    BOOST_TEST(scrape.status == 200u);
    BOOST_TEST(scrape.content_type == "text/plain; version=0.0.4; charset=utf-8");
    BOOST_TEST(scrape.body == metrics.render());

    BOOST_TEST(handle_request(metrics, "GET", "/healthz").status == 200u);
    BOOST_TEST(handle_request(metrics, "HEAD", "/healthz").status == 200u);
    BOOST_TEST(handle_request(metrics, "GET", "/readyz").status == 503u);
    metrics.health.set_streaming(true);
    BOOST_TEST(handle_request(metrics, "GET", "/readyz").status == 200u);
    BOOST_TEST(handle_request(metrics, "GET", "/readyz").body == "postgres: streaming\nkafka: reachable\n");
    BOOST_TEST(handle_request(metrics, "GET", "/").status == 404u);
    BOOST_TEST(handle_request(metrics, "POST", "/metrics").status == 405u);
}

BOOST_AUTO_TEST_CASE(progress_line_reports_rates_positions_and_in_flight) {
    ProgressSample before;
    before.received = 100;
    before.published = 90;
    ProgressSample now = before;
    now.at = before.at + 10s;
    now.received = 500;
    now.published = 489;
    now.confirmed_lsn = 0x1A2B3C;
    now.lag_bytes = 4096;
    now.in_flight_messages = 11;
    now.in_flight_bytes = 2048;
    now.streaming = true;
    BOOST_TEST(progress_line(before, now) ==
               "progress: 500 events received (40.0/s), 489 published (39.9/s), confirmed 0/1A2B3C, lag 4096 bytes, "
               "11 in flight (2048 bytes)");
    now.streaming = false;
    BOOST_TEST(progress_line(before, now).ends_with(", not streaming"));
    now.lag_bytes.reset();
    BOOST_TEST(progress_line(before, now).find("confirmed 0/1A2B3C, lag unknown, 11 in flight") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(progress_sample_reads_the_metrics) {
    Metrics metrics;
    metrics.events_received.with({"a.b"}).add(3);
    metrics.events_received.with({"c.d"}).add(4);
    metrics.events_published.with({"t"}).add(6);
    metrics.in_flight_messages.set(1);
    metrics.in_flight_bytes.set(120);
    metrics.confirmed_lsn.set(500);
    metrics.server_wal_lsn.set(800);
    const auto sample = ProgressSample::read(metrics);
    BOOST_TEST(sample.received == 7u);
    BOOST_TEST(sample.published == 6u);
    BOOST_TEST(sample.in_flight_messages == 1);
    BOOST_TEST(sample.in_flight_bytes == 120);
    BOOST_TEST(sample.confirmed_lsn == 500);
    BOOST_TEST(sample.lag_bytes.value_or(-1) == 300);
    BOOST_TEST(!sample.streaming);
    // Without a slot monitor nobody reads the server's position: the lag is unknown, not 0.
    metrics.server_wal_lsn.set(0);
    BOOST_TEST(!ProgressSample::read(metrics).lag_bytes.has_value());
}

BOOST_AUTO_TEST_CASE(side_connection_bounds_its_waits_without_overriding_the_operator) {
    const std::string prefix =
        "connect_timeout=5 keepalives=1 keepalives_idle=5 keepalives_interval=5 keepalives_count=3 "
        "tcp_user_timeout=15000 application_name=outbox-router-slot-monitor ";
    // Key/value: ours first, so the operator's later settings win.
    BOOST_TEST(side_connection_conninfo("host=db connect_timeout=30") == prefix + "host=db connect_timeout=30");
    // A bare word is a database name to libpq; it stays one.
    BOOST_TEST(side_connection_conninfo("it's") == prefix + "dbname='it\\'s'");
    BOOST_TEST(side_connection_conninfo("postgresql://u:p@db/app") ==
               "postgresql://u:p@db/app?connect_timeout=5&keepalives=1&keepalives_idle=5&keepalives_interval=5"
               "&keepalives_count=3&tcp_user_timeout=15000&application_name=outbox-router-slot-monitor");
    BOOST_TEST(side_connection_conninfo("postgres://db/app?sslmode=require&connect_timeout=2&application_name=x") ==
               "postgres://db/app?sslmode=require&connect_timeout=2&application_name=x&keepalives=1&keepalives_idle=5"
               "&keepalives_interval=5&keepalives_count=3&tcp_user_timeout=15000");
}
