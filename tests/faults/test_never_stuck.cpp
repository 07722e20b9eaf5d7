#define BOOST_TEST_MODULE faults_never_stuck
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <thread>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "http_get.hpp"
#include "tcp_proxy.hpp"
#include "topic_admin.hpp"

// A busy server is not a dead one, and a dead connection is still noticed. On one real
// PostgreSQL server and one real broker.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

std::string outbox_section(const std::string& topic) { return "outbox:\n  route.topic.replacement: " + topic + "\n"; }

// A router with its metrics endpoint on a free port.
struct MeteredRouter {
    explicit MeteredRouter(const std::string& config_without_metrics)
        : port(static_cast<std::uint16_t>(free_loopback_port())),
          process(work_dir(), config_without_metrics + "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n") {}
    double value(const std::string& series) const {
        return sample_value(http_get(port, "/metrics").body, series).value_or(-1);
    }
    std::uint16_t port;
    RouterProcess process;
};

// wal_sender_timeout for one test case: the silence limit is never below it, and the cases
// scale both down to stay short.
struct WalSenderTimeout {
    explicit WalSenderTimeout(const std::string& value) { postgres().set("wal_sender_timeout", value); }
    ~WalSenderTimeout() { postgres().set("wal_sender_timeout", "60s"); }
};

int occurrences(const std::string& text, const std::string& needle) {
    int count = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
    return count;
}

std::string through(TcpProxy& proxy, std::string config) {
    const std::string direct_port = "port=" + std::to_string(postgres().port());
    BOOST_REQUIRE(contains(config, direct_port));
    return config.replace(config.find(direct_port), direct_port.size(), "port=" + std::to_string(proxy.port()));
}

}  // namespace

// A table rewrite is replayed at its commit without a word to the client. Each connection
// given up there is decoded again up to the same place; the stream must get past it.
BOOST_AUTO_TEST_CASE(a_table_rewrite_longer_than_the_receive_timeout_is_waited_out) {
    const WalSenderTimeout sender_timeout("1s");
    const auto db = create_outbox_database("rewrite");
    const std::string topic = "rewrite.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE big (id int)");
    sql.exec("INSERT INTO big SELECT generate_series(1, 1500000)");
    MeteredRouter router(router_config(db, "  receive.timeout.ms: 1000\n  reconnect.backoff.max.ms: 1000\n", "",
                                       outbox_section(topic)));
    BOOST_REQUIRE(router.process.wait_streaming());
    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);

    const auto started = std::chrono::steady_clock::now();
    sql.exec("ALTER TABLE big ALTER COLUMN id TYPE bigint");
    sql.exec(outbox_rows_sql(1, 1, 1));
    const auto records = read_topic(kafka_servers(), topic, 2, 150s);
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
    const int timeouts = occurrences(router.process.output(), "nothing received from the server");
    BOOST_TEST_MESSAGE("1,500,000-row rewrite, receive.timeout.ms 1000, wal_sender_timeout 1 s: " << timeouts
                       << " silence timeouts; the next row " << (records.size() >= 2 ? "arrived" : "did not arrive")
                       << " after " << waited.count() << " s");
    const auto tally = tally_deliveries(records, 2);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

// A network that stops carrying anything without closing the connection (a stalled proxy: its
// kernel still acknowledges, so TCP alone cannot tell) is still taken for lost.
BOOST_AUTO_TEST_CASE(a_connection_that_goes_silent_is_replaced) {
    const WalSenderTimeout sender_timeout("2s");
    const auto db = create_outbox_database("silent");
    const std::string topic = "silent.events";
    create_topic(kafka_servers(), topic, 1, 1);
    TcpProxy proxy(postgres().port());
    MeteredRouter router(through(proxy, router_config(db, "  receive.timeout.ms: 1000\n  reconnect.backoff.max.ms: 1000\n",
                                                      "", outbox_section(topic))));
    BOOST_REQUIRE(router.process.wait_streaming());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 5, 3));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 5).size() == 5u);

    proxy.stall();
    sql.exec(outbox_rows_sql(5, 5, 3));
    BOOST_TEST(wait_until([&] { return contains(router.process.output(), "nothing received from the server"); }, 30s));
    BOOST_TEST(wait_until([&] { return http_get(router.port, "/readyz").status == 503; }, 10s));
    proxy.resume();

    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 10), 10);
    BOOST_TEST_MESSAGE("connection silenced by a stalled proxy: " << tally);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);  // a reconnect alone sends nothing twice
    BOOST_TEST(tally.order_kept);
    BOOST_TEST(wait_until([&] { return http_get(router.port, "/readyz").status == 200; }, 60s));
    BOOST_TEST(router.value("outbox_router_reconnects_total") >= 1);

    // Silent again where the stream stood before (nothing new to read): still noticed.
    const auto before = occurrences(router.process.output(), "nothing received from the server");
    proxy.stall();
    BOOST_TEST(wait_until([&] { return occurrences(router.process.output(), "nothing received from the server") > before; },
                          60s));
    proxy.resume();
    sql.exec(outbox_rows_sql(10, 5, 3));
    BOOST_TEST(tally_deliveries(read_topic(kafka_servers(), topic, 15), 15).missing == 0u);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}
