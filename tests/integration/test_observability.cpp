#define BOOST_TEST_MODULE observability
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <thread>

#include "harness.hpp"
#include "http_get.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// Scrapes a running router: counters against the rows written, LSN figures against
// pg_replication_slots, and the health endpoints while PostgreSQL and Kafka go away and return.

namespace {

struct ObservedRouter {
    explicit ObservedRouter(const std::string& database, const std::string& extra = "")
        : port(static_cast<std::uint16_t>(free_loopback_port())),
          process(work_dir(), router_config(database, "", "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) +
                                                              "\"\n" + extra)) {}

    std::string metrics() const { return http_get(port, "/metrics").body; }
    double value(const std::string& series) const { return sample_value(metrics(), series).value_or(-1); }
    int status(const std::string& path) const { return http_get(port, path).status; }

    std::uint16_t port;
    RouterProcess process;
};

std::string insert_rows(int first, int count, const std::string& type) {
    std::string sql = "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES ";
    for (int i = first; i < first + count; ++i) {
        if (i != first) sql += ", ";
        sql += "(md5('" + type + std::to_string(i) + "')::uuid, '" + type + "', 'key-" + std::to_string(i % 5) +
               "', 'Created', '{\"seq\": " + std::to_string(i) + "}')";
    }
    return sql;
}

double lsn_of(const std::string& text) { return static_cast<double>(lsn_value(text)); }

}  // namespace

BOOST_AUTO_TEST_CASE(counters_match_the_rows_and_positions_match_the_slot) {
    const auto db = create_outbox_database("obs");
    Sql sql(postgres().conninfo(db));
    ObservedRouter router(db);
    BOOST_REQUIRE(wait_until([&] { return router.status("/readyz") == 200; }, 30s));
    BOOST_TEST(router.status("/healthz") == 200);

    constexpr int kTransactions = 12, kRowsPerTransaction = 10, kCustomers = 30;
    for (int t = 0; t < kTransactions; ++t)
        sql.exec("BEGIN; " + insert_rows(t * kRowsPerTransaction, kRowsPerTransaction, "Order") + "; COMMIT;");
    sql.exec(insert_rows(0, kCustomers, "Customer"));
    sql.exec("UPDATE outbox SET type = 'Changed' WHERE aggregatetype = 'Customer' AND payload->>'seq' = '0'");
    sql.exec("INSERT INTO orders SELECT g, 'c', g FROM generate_series(1, 100) g");  // not an outbox table
    const auto last_write = lsn_of(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_REQUIRE(read_topic(kafka_servers(), "outbox.event.Order", kTransactions * kRowsPerTransaction).size() ==
                  static_cast<std::size_t>(kTransactions * kRowsPerTransaction));

    const int total = kTransactions * kRowsPerTransaction + kCustomers;
    BOOST_TEST(wait_until([&] {
        return router.value("outbox_router_events_published_total{topic=\"outbox.event.Order\"}") ==
                   kTransactions * kRowsPerTransaction &&
               router.value("outbox_router_events_published_total{topic=\"outbox.event.Customer\"}") == kCustomers;
    }, 30s), router.metrics());
    const std::string text = router.metrics();
    BOOST_TEST(sample_value(text, "outbox_router_events_received_total{table=\"public.outbox\"}").value_or(-1) == total);
    BOOST_TEST(sample_value(text, "outbox_router_events_skipped_total{table=\"public.outbox\",reason=\"update\"}").value_or(-1) == 1);
    BOOST_TEST(text.find("outbox_router_events_dead_lettered_total{") == std::string::npos);
    BOOST_TEST(sample_value(text, "outbox_router_commit_to_ack_seconds_count").value_or(-1) == total);
    BOOST_TEST(sample_value(text, "outbox_router_commit_to_ack_seconds_bucket{le=\"+Inf\"}").value_or(-1) == total);
    BOOST_TEST(sample_value(text, "outbox_router_commit_to_ack_seconds_sum").value_or(-1) > 0);
    BOOST_TEST(sample_value(text, "outbox_router_in_flight_messages").value_or(-1) == 0);
    BOOST_TEST(sample_value(text, "outbox_router_in_flight_bytes").value_or(-1) == 0);
    BOOST_TEST(sample_value(text, "outbox_router_producer_errors_total").value_or(-1) == 0);
    BOOST_TEST(sample_value(text, "outbox_router_reconnects_total").value_or(-1) == 0);
    BOOST_TEST(sample_value(text, "outbox_router_streaming").value_or(-1) == 1);

    // Everything delivered: the slot moves past the last write, and the router's figures agree
    // with the server's. Idle keepalives keep moving both, so compare within one wait.
    BOOST_REQUIRE(wait_until([&] { return static_cast<double>(confirmed_flush_lsn(db, db)) >= last_write; }, 30s));
    BOOST_TEST(router.value("outbox_router_transactions_confirmed_total") >= kTransactions + 1);
    BOOST_TEST(wait_until([&] {
        const double metric = router.value("outbox_router_confirmed_lsn_bytes");
        return metric == static_cast<double>(confirmed_flush_lsn(db, db));
    }, 30s), router.metrics());
    BOOST_TEST(router.value("outbox_router_received_lsn_bytes") >= last_write);

    // The slot monitor (every 5 s) sees the same slot from its side connection.
    BOOST_TEST(wait_until([&] { return router.value("outbox_router_slot_confirmed_flush_lsn_bytes") >= last_write; }, 30s));
    const std::string slot = router.metrics();
    const auto slot_now = sql.rows("SELECT pg_current_wal_lsn(), restart_lsn, confirmed_flush_lsn FROM pg_replication_slots "
                                   "WHERE slot_name = '" + db + "'");
    const double server = sample_value(slot, "outbox_router_server_wal_lsn_bytes").value_or(-1);
    const double retained = sample_value(slot, "outbox_router_slot_retained_wal_bytes").value_or(-1);
    BOOST_TEST(sample_value(slot, "outbox_router_slot_monitor_up").value_or(-1) == 1);
    BOOST_TEST(sample_value(slot, "outbox_router_slot_active").value_or(-1) == 1);
    BOOST_TEST(server >= last_write);
    BOOST_TEST(server <= lsn_of(slot_now[0][0]));
    BOOST_TEST(sample_value(slot, "outbox_router_slot_confirmed_flush_lsn_bytes").value_or(-1) <= lsn_of(slot_now[0][2]));
    // The monitor's restart_lsn is its server position minus what it reports retained; restart_lsn only moves forward.
    BOOST_TEST(retained > 0);
    BOOST_TEST(server - retained <= lsn_of(slot_now[0][1]));
    const double confirmed = std::max(sample_value(slot, "outbox_router_confirmed_lsn_bytes").value_or(-1),
                                      sample_value(slot, "outbox_router_slot_confirmed_flush_lsn_bytes").value_or(-1));
    const double lag = sample_value(slot, "outbox_router_lag_bytes").value_or(-1);
    BOOST_TEST(lag == std::max(0.0, server - confirmed));

    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(health_endpoints_follow_kafka_and_postgres) {
    const auto db = create_outbox_database("health");
    Sql admin(postgres().conninfo("postgres"));
    ObservedRouter router(db);
    BOOST_REQUIRE(wait_until([&] { return router.status("/readyz") == 200; }, 30s));

    // Kafka away (the broker stopped with SIGSTOP answers nothing): not ready, still alive; back:
    // ready again.
    real_kafka().node(1).pause();
    BOOST_TEST(wait_until([&] { return router.status("/readyz") == 503; }, 30s));
    BOOST_TEST(http_get(router.port, "/readyz").body.find("kafka: unreachable") != std::string::npos);
    BOOST_TEST(router.status("/healthz") == 200);
    real_kafka().node(1).resume();
    BOOST_TEST(wait_until([&] { return router.status("/readyz") == 200; }, 30s));

    // PostgreSQL away for this database: the walsender is ended and reconnecting is refused.
    admin.exec("ALTER DATABASE " + db + " ALLOW_CONNECTIONS false");
    admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db + "'");
    BOOST_TEST(wait_until([&] { return router.status("/readyz") == 503; }, 30s));
    const auto away = http_get(router.port, "/readyz");
    BOOST_TEST(away.body.find("postgres: not streaming") != std::string::npos);
    BOOST_TEST(wait_until([&] { return router.value("outbox_router_slot_monitor_up") == 0; }, 30s));
    BOOST_TEST(router.value("outbox_router_streaming") == 0);
    // Backing off between attempts is progress too: the process is alive, only not ready.
    std::this_thread::sleep_for(3s);
    BOOST_TEST(router.status("/healthz") == 200);

    admin.exec("ALTER DATABASE " + db + " ALLOW_CONNECTIONS true");
    BOOST_TEST(wait_until([&] { return router.status("/readyz") == 200; }, 60s));
    BOOST_TEST(router.value("outbox_router_reconnects_total") >= 1);
    BOOST_TEST(wait_until([&] { return router.value("outbox_router_slot_monitor_up") == 1; }, 30s));
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(progress_line_counts_the_events) {
    const auto db = create_outbox_database("progress");
    Sql sql(postgres().conninfo(db));
    ObservedRouter router(db, "log:\n  format: json\n  progress.interval.ms: 500\n");
    BOOST_REQUIRE(wait_until([&] { return router.status("/readyz") == 200; }, 30s));
    sql.exec(insert_rows(0, 25, "Order"));
    BOOST_TEST(wait_until([&] {
        return router.process.output().find("\"msg\":\"progress: 25 events received") != std::string::npos;
    }, 30s), router.process.output());
    BOOST_TEST(wait_until([&] { return router.process.output().find(", 25 published (") != std::string::npos; }, 30s));
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}
