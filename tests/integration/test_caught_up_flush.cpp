#define BOOST_TEST_MODULE caught_up_flush
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <thread>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "harness.hpp"
#include "http_get.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// A caught-up router sends each record at once instead of letting librdkafka wait linger.ms;
// a router reading a backlog leaves batching to linger.ms. The linger values below are far
// longer than the waits, so which of the two happened shows in when the records arrive and in
// outbox_router_caught_up_flushes_total.

namespace {

// The test server runs with synchronous_commit off: its WAL writer flushes a commit up to
// 200 ms later, and the walsender sends only flushed WAL, so such commits look like a backlog.
const char* const kFlushAtCommit = "SET synchronous_commit = on";

std::string config_for(const std::string& database, std::uint16_t metrics_port, int linger_ms,
                       const std::string& top_extra = "") {
    return "postgres:\n"
           "  conninfo: \"" + postgres().conninfo(database) + "\"\n"
           "  slot.name: " + database + "\n"
           "  publication.name: " + database + "\n"
           "  status.update.interval.ms: 200\n"
           "kafka:\n"
           "  bootstrap.servers: \"" + kafka_servers() + "\"\n"
           "  linger.ms: " + std::to_string(linger_ms) + "\n"
           "metrics:\n"
           "  listen: \"127.0.0.1:" + std::to_string(metrics_port) + "\"\n" +
           top_extra;
}

double flushes(std::uint16_t port) {
    return sample_value(http_get(port, "/metrics").body, "outbox_router_caught_up_flushes_total").value_or(-1);
}

double published(std::uint16_t port, const std::string& topic) {
    return sample_value(http_get(port, "/metrics").body,
                        "outbox_router_events_published_total{topic=\"" + topic + "\"}").value_or(0);
}

std::size_t records_in(const std::string& topic, std::size_t expected, std::chrono::milliseconds timeout) {
    return read_topic(kafka_servers(), topic, expected, timeout).size();
}

// A router on a database of its own, serving /readyz, and a session that commits with a flush.
struct ReadyRouter {
    ReadyRouter(const std::string& name, int linger_ms, const std::string& top_extra = "")
        : db(create_outbox_database(name)),
          port(static_cast<std::uint16_t>(free_loopback_port())),
          router(work_dir(), config_for(db, port, linger_ms, top_extra)),
          sql(postgres().conninfo(db)) {
        BOOST_REQUIRE(wait_until([&] { return http_get(port, "/readyz").status == 200; }, 30s));
        sql.exec(kFlushAtCommit);
    }
    std::string db;
    std::uint16_t port;
    RouterProcess router;
    Sql sql;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_caught_up_router_does_not_wait_for_linger_ms) {
    ReadyRouter ready("caughtup", 120000);
    auto& [db, port, router, sql] = ready;
    sql.exec(outbox_rows_sql(0, 1, 1, "Prompt"));
    // librdkafka alone would hold the record for two minutes.
    BOOST_TEST(records_in("outbox.event.Prompt", 1, 30s) == 1u, router.output());
    sql.exec("BEGIN; " + outbox_rows_sql(1, 20, 3, "Prompt") + "; COMMIT;");
    BOOST_TEST(records_in("outbox.event.Prompt", 21, 30s) == 21u);
    BOOST_TEST(flushes(port) >= 2);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_backlog_waits_for_linger_ms_and_live_rows_after_it_do_not) {
    const auto db = create_outbox_database("backlog");
    const auto port = static_cast<std::uint16_t>(free_loopback_port());
    const auto config = config_for(db, port, 1500, "caught.up.lag.ms: 50\n");
    {
        // The slot must exist before the first write: it only sees WAL written after it.
        RouterProcess creator(work_dir(), config);
        BOOST_REQUIRE(creator.wait_streaming());
        BOOST_TEST(creator.stop(SIGTERM) == 0);
    }
    Sql sql(postgres().conninfo(db));
    constexpr int kTransactions = 20, kRowsPerTransaction = 10, kBacklog = kTransactions * kRowsPerTransaction;
    for (int t = 0; t < kTransactions; ++t)
        sql.exec("BEGIN; " + outbox_rows_sql(t * kRowsPerTransaction, kRowsPerTransaction, 7, "Backlog") + "; COMMIT;");
    // Every backlog transaction is then older than caught.up.lag.ms when the server sends it.
    std::this_thread::sleep_for(500ms);

    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(wait_until([&] { return published(port, "outbox.event.Backlog") == kBacklog; }, 60s));
    BOOST_TEST(flushes(port) == 0);
    BOOST_TEST(records_in("outbox.event.Backlog", kBacklog, 10s) == static_cast<std::size_t>(kBacklog));

    sql.exec(kFlushAtCommit);
    sql.exec(outbox_rows_sql(kBacklog, 1, 1, "Live"));
    BOOST_TEST(wait_until([&] { return published(port, "outbox.event.Live") == 1; }, 30s));
    BOOST_TEST(flushes(port) >= 1);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(caught_up_lag_ms_0_leaves_every_record_to_linger_ms) {
    ReadyRouter ready("lingering", 1000, "caught.up.lag.ms: 0\n");
    auto& [db, port, router, sql] = ready;
    for (int i = 0; i < 3; ++i) sql.exec(outbox_rows_sql(i, 1, 1, "Patient"));
    BOOST_TEST(records_in("outbox.event.Patient", 3, 30s) == 3u);
    BOOST_TEST(flushes(port) == 0);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// Against a broker slower than the rows arrive, a flush per row would send one small request per
// row and block the loop a millisecond each time; the router waits for the previous flush's
// reports instead, so rows that arrive meanwhile share the next flush.
BOOST_AUTO_TEST_CASE(against_a_slow_broker_one_flush_waits_for_the_previous_ones_reports) {
    constexpr int kRoundTripMs = 300;
    constexpr int kRows = 40;
    struct SlowBroker {
        SlowBroker() { rd_kafka_mock_broker_set_rtt(kafka_cluster().mock(), -1, kRoundTripMs); }
        ~SlowBroker() { rd_kafka_mock_broker_set_rtt(kafka_cluster().mock(), -1, 0); }
    };
    ReadyRouter ready("slowbroker", 120000);
    auto& [db, port, router, sql] = ready;
    const SlowBroker slow;
    // The first row's flush measures the round trip.
    sql.exec(outbox_rows_sql(0, 1, 1, "Slow"));
    BOOST_REQUIRE(wait_until([&] { return published(port, "outbox.event.Slow") == 1; }, 30s));
    const double before = flushes(port);

    const auto start = std::chrono::steady_clock::now();
    for (int i = 1; i <= kRows; ++i) {
        sql.exec(outbox_rows_sql(i, 1, 1, "Slow"));
        std::this_thread::sleep_for(10ms);
    }
    BOOST_REQUIRE(wait_until([&] { return published(port, "outbox.event.Slow") == kRows + 1; }, 30s));
    const auto elapsed_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    const double made = flushes(port) - before;
    BOOST_TEST_MESSAGE(made << " flushes for " << kRows << " rows over " << elapsed_ms << " ms");
    // One per round trip, plus the forced ones at twice the round trip; one per row before.
    BOOST_TEST(made >= 1);
    BOOST_TEST(made <= 2.0 * (static_cast<double>(elapsed_ms) / kRoundTripMs + 2));
    BOOST_TEST(made < kRows / 2.0);
    BOOST_TEST(records_in("outbox.event.Slow", kRows + 1, 30s) == static_cast<std::size_t>(kRows + 1));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
