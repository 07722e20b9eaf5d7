#define BOOST_TEST_MODULE postgres_outages
#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <thread>
#include <vector>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

const std::string kFastReconnect = "  reconnect.backoff.max.ms: 1000\n";

std::string config_for(const std::string& db, const std::string& topic, const std::string& top_extra = "") {
    return router_config(db, kFastReconnect, top_extra, "outbox:\n  route.topic.replacement: " + topic + "\n");
}

// A server that accepts connections and never answers: a hung PostgreSQL, or a network that
// drops its replies. libpq, left to itself, waits for it for ever.
class SilentServer {
public:
    SilentServer() : fd_(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        BOOST_REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        BOOST_REQUIRE(listen(fd_, 16) == 0);
        BOOST_REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        port_ = ntohs(address.sin_port);
    }
    ~SilentServer() {
        for (const int client : clients_) close(client);
        close(fd_);
    }
    int port() const { return port_; }
    // Accepts what is waiting; returns how many connections it holds.
    std::size_t accept_waiting() {
        for (int client; (client = accept(fd_, nullptr, nullptr)) >= 0;) clients_.push_back(client);
        return clients_.size();
    }

private:
    int fd_;
    int port_ = 0;
    std::vector<int> clients_;
};

}  // namespace

// The replication connection, the heartbeat's and the slot monitor's all wait on the server;
// a shutdown must end those waits instead of waiting for a reply that never comes.
BOOST_AUTO_TEST_CASE(a_server_that_never_answers_does_not_hold_up_a_shutdown) {
    SilentServer silent;
    auto config = router_config("silent", "  heartbeat.interval.ms: 50\n", "metrics:\n  listen: \"127.0.0.1:" +
                                std::to_string(free_loopback_port()) + "\"\n");
    const auto conninfo = postgres().conninfo("silent");
    config.replace(config.find(conninfo), conninfo.size(),
                   "host=127.0.0.1 port=" + std::to_string(silent.port()) + " user=postgres dbname=silent");
    RouterProcess router(work_dir(), config);
    // All three connect and then wait for the server's first reply.
    BOOST_REQUIRE_MESSAGE(wait_until([&] { return silent.accept_waiting() >= 3; }, 30s), router.output());
    BOOST_TEST(router.stop(SIGTERM) == 0, router.output());
    BOOST_TEST(!contains(router.output(), "reconnecting"), router.output());
    BOOST_TEST(!contains(router.output(), "WARN"), router.output());
}

BOOST_AUTO_TEST_CASE(walsender_terminated_mid_stream_reconnects_and_loses_nothing) {
    const auto db = create_outbox_database("terminate");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), config_for(db, "terminate.events"));
    BOOST_REQUIRE(router.wait_streaming());
    std::thread writer([&] {
        Sql w(postgres().conninfo(db));
        for (int t = 0; t < 100; ++t) w.exec("BEGIN; " + outbox_rows_sql(t * 50, 50, 9) + "; COMMIT;");
    });
    for (int i = 0; i < 3; ++i) {
        std::this_thread::sleep_for(400ms);
        sql.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + db +
                 "' AND active_pid IS NOT NULL");
    }
    writer.join();
    BOOST_TEST(sequences_in("terminate.events", 5000).size() == 5000u);
    BOOST_TEST(contains(router.output(), "reconnecting"));
    BOOST_TEST(router.running());
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(server_restart_and_connection_refused_at_start_are_retried) {
    const auto db = create_outbox_database("restart");
    {
        Sql sql(postgres().conninfo(db));
        RouterProcess router(work_dir(), config_for(db, "pgrestart.events"));
        BOOST_REQUIRE(router.wait_streaming());
        sql.exec(outbox_rows_sql(0, 100, 9));
        BOOST_REQUIRE(sequences_in("pgrestart.events", 100).size() == 100u);
        postgres().restart();
        Sql after(postgres().conninfo(db));
        after.exec(outbox_rows_sql(100, 100, 9));
        BOOST_TEST(sequences_in("pgrestart.events", 200).size() == 200u);
        BOOST_REQUIRE(router.wait_streaming(2));
        BOOST_TEST(router.stop(SIGTERM) == 0);
    }
    // Started while the server is down: it keeps trying and streams once the server is back.
    postgres().stop();
    RouterProcess router(work_dir(), config_for(db, "pgrestart.events"));
    BOOST_TEST(wait_until([&] { return contains(router.output(), "Connection refused"); }, 30s));
    BOOST_TEST(router.running());
    postgres().start();
    BOOST_REQUIRE(router.wait_streaming());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(200, 100, 9));
    BOOST_TEST(sequences_in("pgrestart.events", 300).size() == 300u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(standby_on_the_same_slot_takes_over_when_the_active_router_dies) {
    const auto db = create_outbox_database("standby");
    Sql sql(postgres().conninfo(db));
    const auto config = config_for(db, "standby.events");
    RouterProcess active(work_dir(), config);
    BOOST_REQUIRE(active.wait_streaming());
    RouterProcess standby(work_dir(), config);
    BOOST_TEST(wait_until([&] { return contains(standby.output(), "is active for PID"); }, 30s));
    sql.exec(outbox_rows_sql(0, 100, 9));
    BOOST_REQUIRE(sequences_in("standby.events", 100).size() == 100u);
    BOOST_TEST(standby.times_streamed() == 0);

    active.kill_hard();
    const auto killed = std::chrono::steady_clock::now();
    BOOST_REQUIRE(standby.wait_streaming());
    const auto takeover = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killed);
    BOOST_TEST_MESSAGE("standby took over " << takeover.count() << " ms after the active router was killed "
                                             "(reconnect.backoff.max.ms 1000)");
    sql.exec(outbox_rows_sql(100, 100, 9));
    BOOST_TEST(sequences_in("standby.events", 200).size() == 200u);
    BOOST_TEST(standby.stop(SIGTERM) == 0);
}

namespace {

// Terminates the walsender of slot `slot` and drops the slot before the router reconnects.
bool drop_slot_under_router(Sql& sql, const std::string& slot) {
    return wait_until(
        [&] {
            try {
                sql.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" +
                         slot + "' AND active_pid IS NOT NULL");
                sql.exec("SELECT pg_drop_replication_slot('" + slot + "')");
                return true;
            } catch (const std::exception&) {
                return false;
            }
        },
        30s);
}

}  // namespace

BOOST_AUTO_TEST_CASE(slot_dropped_while_running_is_a_definite_error) {
    const auto db = create_outbox_database("slotdrop");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), config_for(db, "slotdrop.events"));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_REQUIRE(drop_slot_under_router(sql, db));
    BOOST_TEST(router.wait(60s) == 1);
    BOOST_TEST(contains(last_line(router.output()), "was dropped while the router was running"));
    BOOST_TEST(sql.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db + "'") == "0");
}

BOOST_AUTO_TEST_CASE(slot_dropped_while_running_is_recreated_only_when_the_setting_says_so) {
    const auto db = create_outbox_database("slotrecreate");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db, kFastReconnect + "  slot.recreate.when.lost: true\n", "",
                                                   "outbox:\n  route.topic.replacement: slotrecreate.events\n"));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_REQUIRE(drop_slot_under_router(sql, db));
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(2), router.output());
    BOOST_TEST(contains(router.output(), "was dropped while the router was running"), router.output());
    BOOST_TEST(contains(router.output(), "creating a new slot, which starts now (slot.recreate.when.lost)"), router.output());
    sql.exec(outbox_rows_sql(0, 50, 9));
    BOOST_TEST(sequences_in("slotrecreate.events", 50).size() == 50u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(publication_dropped_while_running_is_a_definite_error) {
    const auto db = create_outbox_database("pubdrop");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), config_for(db, "pubdrop.events"));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec("DROP PUBLICATION " + db);
    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_TEST(router.wait(60s) == 1);
    const auto line = last_line(router.output());
    BOOST_TEST(contains(line, "publication"));
    BOOST_TEST(contains(line, db));
    BOOST_TEST(sql.scalar("SELECT count(*) FROM pg_publication WHERE pubname = '" + db + "'") == "0");  // not re-created
}

BOOST_AUTO_TEST_CASE(invalidated_slot_is_a_definite_error) {
    const auto db = create_outbox_database("lost");
    Sql sql(postgres().conninfo(db));
    {
        RouterProcess router(work_dir(), config_for(db, "lost.events"));
        BOOST_REQUIRE(router.wait_streaming());
        BOOST_REQUIRE(router.stop(SIGTERM) == 0);
    }
    // While the router is away, the server removes WAL the slot still needs.
    postgres().set("max_slot_wal_keep_size", "1MB");
    for (int i = 0; i < 4; ++i) {
        sql.exec("INSERT INTO orders SELECT g, 'x', g FROM generate_series(" + std::to_string(i * 20000 + 1) + ", " +
                 std::to_string(i * 20000 + 20000) + ") g");
        sql.exec("SELECT pg_switch_wal()");
    }
    sql.exec("CHECKPOINT");
    const bool lost = wait_until(
        [&] {
            sql.exec("CHECKPOINT");
            return sql.scalar("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + db + "'") == "lost";
        },
        30s);
    postgres().set("max_slot_wal_keep_size", "-1");
    BOOST_REQUIRE(lost);
    RouterProcess router(work_dir(), config_for(db, "lost.events"));
    BOOST_TEST(router.wait(60s) == 1);
    const auto cause = last_line(router.output());
    BOOST_TEST(contains(cause, "is invalidated ("), cause);
    BOOST_TEST(contains(cause, "max_slot_wal_keep_size"), cause);
}

BOOST_AUTO_TEST_CASE(passwords_never_reach_the_logs) {
    const auto db = create_outbox_database("secret");
    setenv("OUTBOX_TEST_PGPASSWORD", "s3cr3t-hunter2", 1);
    auto config = config_for(db, "secret.events");
    config.replace(config.find("user=postgres"), 13, "user=postgres password=${env:OUTBOX_TEST_PGPASSWORD}");
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_TEST(router.stop(SIGTERM) == 0);
    // And when the connection fails, libpq's message must not carry it either.
    auto unreachable = config;
    const std::string port = std::to_string(postgres().port());
    unreachable.replace(unreachable.find("port=" + port), 5 + port.size(), "port=" + std::to_string(free_loopback_port()));
    RouterProcess failing(work_dir(), unreachable);
    BOOST_TEST(wait_until([&] { return contains(failing.output(), "cannot connect"); }, 30s));
    BOOST_TEST(failing.stop(SIGTERM) == 0);
    BOOST_TEST(!contains(router.output() + failing.output(), "s3cr3t-hunter2"));
}
