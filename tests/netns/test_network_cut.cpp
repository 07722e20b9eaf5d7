#define BOOST_TEST_MODULE netns_network_cut
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "topic_admin.hpp"

// A network that drops the replication connection's packets without closing it: the kernel
// gives the connection up (tcp_user_timeout and keepalives, set from postgres.receive.timeout.ms),
// not only the router's silence limit. A loopback proxy cannot drop packets, so this program runs
// in a network namespace of its own, where iptables drops one connection's packets:
// scripts/network-cut-test.sh (root, and the iptables package).

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

// Drops every packet of the TCP connection whose client end is `port`, both ways, until destroyed.
struct DroppedConnection {
    explicit DroppedConnection(const std::string& port) : rules{"--sport " + port, "--dport " + port} {
        for (const auto& rule : rules) BOOST_REQUIRE(std::system(("iptables -A OUTPUT -p tcp " + rule + " -j DROP").c_str()) == 0);
    }
    ~DroppedConnection() {
        for (const auto& rule : rules) (void)std::system(("iptables -D OUTPUT -p tcp " + rule + " -j DROP").c_str());
    }
    std::vector<std::string> rules;
};

int occurrences(const std::string& text, const std::string& needle) {
    int count = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
    return count;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_replication_connection_whose_packets_are_dropped_is_given_up_by_the_kernel) {
    // The silence limit is never below wal_sender_timeout: 10 s keeps it well behind the kernel's
    // 2 s, and lets the cut-off walsender give up the slot soon after.
    postgres().set("wal_sender_timeout", "10s");
    const auto db = create_outbox_database("cut");
    const std::string topic = "cut.events";
    create_topic(kafka_servers(), topic, 1, 1);
    RouterProcess router(work_dir(), router_config(db, "  receive.timeout.ms: 2000\n  reconnect.backoff.max.ms: 1000\n", "",
                                                   "outbox:\n  route.topic.replacement: " + topic + "\n"));
    BOOST_REQUIRE(router.wait_streaming());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 5, 3));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 5).size() == 5u);

    const auto client_port =
        sql.scalar("SELECT client_port FROM pg_stat_replication WHERE pid = (SELECT active_pid FROM "
                   "pg_replication_slots WHERE slot_name = '" + db + "')");
    BOOST_REQUIRE(!client_port.empty());
    const auto cut_at = std::chrono::steady_clock::now();
    {
        const DroppedConnection cut(client_port);
        sql.exec(outbox_rows_sql(5, 5, 3));
        BOOST_TEST(wait_until([&] { return contains(router.output(), "Connection timed out"); }, 30s));
    }
    const auto noticed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - cut_at);
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 10), 10);
    BOOST_TEST_MESSAGE("replication connection's packets dropped (receive.timeout.ms 2000): given up after about "
                       << noticed.count() << " ms; " << tally);
    BOOST_TEST(occurrences(router.output(), "nothing received from the server") == 0);
    BOOST_TEST(router.wait_streaming(2));
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
