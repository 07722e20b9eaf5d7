#define BOOST_TEST_MODULE cli
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <csignal>
#include <cstdlib>
#include <vector>

#include "harness.hpp"
#include "outbox/util/file_descriptor.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;


BOOST_AUTO_TEST_CASE(help_version_and_usage_errors) {
    std::string output;
    BOOST_TEST(run_router("--help", output) == 0);
    BOOST_TEST(contains(output, "--config FILE"));
    BOOST_TEST(run_router("--version", output) == 0);
    BOOST_TEST(contains(output, "outbox-router 0."));
    BOOST_TEST(run_router("", output) == 2);
    BOOST_TEST(contains(output, "--config FILE is required"));
    BOOST_TEST(run_router("--bogus", output) == 2);
    BOOST_TEST(contains(output, "\"--bogus\""));
    BOOST_TEST(run_router("import", output) == 2);
    BOOST_TEST(contains(output, "import takes a connector file"));
}

BOOST_AUTO_TEST_CASE(import_writes_a_config_that_checks_and_exits_1_on_a_bad_connector) {
    const auto db = create_outbox_database("imported");
    const std::string connector = work_dir() + "/connector.json";
    const std::string yaml = work_dir() + "/imported.yaml";
    write_file(connector, debezium_connector_json(db, "events.${routedByValue}", R"(, "snapshot.mode": "initial")"));
    // The YAML on standard output, what was not imported on standard error.
    const std::string notes_path = work_dir() + "/import-notes.txt";
    const int status = std::system((std::string(OUTBOX_ROUTER_BINARY) + " import " + connector + " >" + yaml + " 2>" +
                                    notes_path).c_str());
    BOOST_TEST(WEXITSTATUS(status) == 0);
    const std::string notes = read_file(notes_path);
    BOOST_TEST(notes == "outbox-router import: not imported: " + connector +
                            ": snapshot.mode: the router does not snapshot: it publishes the outbox rows committed "
                            "from the slot's position on\n"
                            "outbox-router import: not imported: (not given): bootstrap.servers: Kafka Connect's worker "
                            "holds it: pass the worker's properties as a second file, or set KAFKA_BOOTSTRAP_SERVERS\n");
    const std::string imported = read_file(yaml);
    BOOST_TEST(contains(imported, "route.topic.replacement: \"events.${routedByValue}\""));
    BOOST_TEST(contains(imported, "#   " + connector + ": snapshot.mode = initial: the router does not snapshot"));
    ::setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_servers().c_str(), 1);
    std::string output;
    BOOST_TEST(run_router("--config " + yaml + " --check", output) == 0, output);

    write_file(connector, R"({"connector.class": "io.debezium.connector.mysql.MySqlConnector"})");
    BOOST_TEST(run_router("import " + connector, output) == 1);
    BOOST_TEST(contains(last_line(output), "outbox-router reads PostgreSQL only"));
}

BOOST_AUTO_TEST_CASE(bad_config_exits_1_with_file_and_line) {
    const std::string path = work_dir() + "/bad.yaml";
    write_file(path, "postgres:\n  conninfo: \"host=x\"\n  slot.nmae: typo\nkafka:\n  bootstrap.servers: x:1\n");
    std::string output;
    BOOST_TEST(run_router("--config " + path, output) == 1);
    BOOST_TEST(contains(output, path + ":3:"));
    BOOST_TEST(contains(output, "slot.nmae"));

    write_file(path, "postgres:\n  conninfo: \"password=${env:OUTBOX_TEST_UNSET_VARIABLE}\"\nkafka:\n  bootstrap.servers: x:1\n");
    BOOST_TEST(run_router("--config " + path, output) == 1);
    BOOST_TEST(contains(output, "OUTBOX_TEST_UNSET_VARIABLE"));
    BOOST_TEST(contains(output, path + ":2:"));

    write_file(path, "postgres:\n  conninfo: \"host=x\"\noutbox:\n  route.topic.regex: \"(?<unclosed\"\nkafka:\n  bootstrap.servers: x:1\n");
    BOOST_TEST(run_router("--config " + path, output) == 1);
    BOOST_TEST(contains(output, path + ":4: outbox.route.topic.regex"));
}

BOOST_AUTO_TEST_CASE(check_passes_on_a_ready_database_and_creates_nothing) {
    const auto db = create_outbox_database("check_ok");
    RouterProcess check(work_dir(), router_config(db), "--check");
    BOOST_TEST(check.wait(60s) == 0);
    const auto output = check.output();
    BOOST_TEST(contains(output, "ok    postgres: wal_level = logical"));
    BOOST_TEST(contains(output, "ok    postgres: outbox table public.outbox has the configured columns"));
    BOOST_TEST(contains(output, "is missing and can be created"));
    BOOST_TEST(contains(output, "ok    kafka: cluster metadata reachable"));
    BOOST_TEST(!contains(output, "FAIL"));
    Sql sql(postgres().conninfo(db));
    BOOST_TEST(sql.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db + "'") == "0");
    BOOST_TEST(sql.scalar("SELECT count(*) FROM pg_publication") == "0");
}

BOOST_AUTO_TEST_CASE(check_reports_each_problem_on_its_own_line) {
    const auto db = postgres().create_database("check_bad");
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE outbox (id uuid, aggregatetype text, payload jsonb)");
    const auto config = router_config(db, "  publication.autocreate.mode: disabled\n") ;
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 1);
    const auto output = check.output();
    BOOST_TEST(contains(output, "FAIL  postgres: outbox table public.outbox has no column \"aggregateid\" (outbox.table.field.event.key)"));
    BOOST_TEST(contains(output, "FAIL  postgres: publication \"" + db + "\" does not exist"));
}

BOOST_AUTO_TEST_CASE(check_fails_when_kafka_is_unreachable_and_never_prints_the_password) {
    const auto db = create_outbox_database("check_kafka");
    std::string config = router_config(db);
    config.replace(config.find(kafka_servers()), kafka_servers().size(),
                   "127.0.0.1:" + std::to_string(free_loopback_port()));
    config.replace(config.find("user=postgres"), 13, "user=postgres password=hunter2-secret");
    config += "  message.timeout.ms: 2000\n";
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 1);
    BOOST_TEST(contains(check.output(), "FAIL  kafka: cannot read cluster metadata"));
    BOOST_TEST(!contains(check.output(), "hunter2-secret"));
}

// A server that accepts the connection and then says nothing (a hung proxy): --check fails on
// PostgreSQL within postgres.receive.timeout.ms instead of waiting for ever, and goes on to Kafka.
BOOST_AUTO_TEST_CASE(check_fails_on_a_postgres_that_accepts_and_never_answers) {
    const outbox::FileDescriptor listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    BOOST_REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), length) == 0);
    BOOST_REQUIRE(::listen(listener.get(), 8) == 0);  // the kernel completes the handshake; nobody reads
    BOOST_REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
    const std::string silent = "host=127.0.0.1 port=" + std::to_string(ntohs(address.sin_port)) +
                               " dbname=silent user=postgres sslmode=disable";
    const auto config = router_config_for(silent, "silent", "  receive.timeout.ms: 1500\n");
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 1, check.output());
    const auto output = check.output();
    BOOST_TEST(contains(output, "FAIL  postgres: no answer within 1500 ms while checking the replication connection"), output);
    BOOST_TEST(contains(output, "ok    kafka: cluster metadata reachable"), output);
}

// A DATABASE_URL written for SQLAlchemy is no URI libpq reads: libpq would take it for a
// database name, on the server PGHOST names, and the server's "database ... does not exist"
// would quote it, password and all.
BOOST_AUTO_TEST_CASE(a_url_libpq_does_not_read_is_refused_at_load_and_its_password_never_shown) {
    const auto db = create_outbox_database("sqlalchemy_url");
    std::string config = router_config(db);
    const auto conninfo_start = config.find("conninfo: ");
    config.replace(conninfo_start, config.find('\n', conninfo_start) - conninfo_start,
                   "conninfo: ${env:OUTBOX_TEST_DATABASE_URL}");
    BOOST_REQUIRE(setenv("OUTBOX_TEST_DATABASE_URL",
                         ("postgresql+psycopg2://postgres:hunter2-secret@127.0.0.1/" + db).c_str(), 1) == 0);
    BOOST_REQUIRE(setenv("PGHOST", "127.0.0.1", 1) == 0);
    BOOST_REQUIRE(setenv("PGPORT", std::to_string(postgres().port()).c_str(), 1) == 0);
    BOOST_REQUIRE(setenv("PGUSER", "postgres", 1) == 0);
    for (const std::string argument : {"--check", ""}) {
        RouterProcess router(work_dir(), config, argument);
        BOOST_TEST(router.wait(60s) == 1, router.output());
        BOOST_TEST(contains(last_line(router.output()), "postgres.conninfo: the conninfo in "
                                                        "${env:OUTBOX_TEST_DATABASE_URL}: the text (without '=', so a "
                                                        "database name to libpq) holds \"://\" or \"@\""),
                   router.output());
        BOOST_TEST(!contains(router.output(), "hunter2-secret"), router.output());
    }
    unsetenv("PGHOST");
    unsetenv("PGPORT");
    unsetenv("PGUSER");
    unsetenv("OUTBOX_TEST_DATABASE_URL");
}

BOOST_AUTO_TEST_CASE(missing_column_at_start_is_a_definite_error_naming_table_and_column) {
    const auto db = postgres().create_database("nocol");
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE outbox (id uuid, aggregatetype text, aggregateid text, body jsonb)");
    RouterProcess router(work_dir(), router_config(db));
    BOOST_TEST(router.wait(60s) == 1);
    const auto line = last_line(router.output());
    BOOST_TEST(contains(line, "outbox table public.outbox has no column \"payload\" (outbox.table.field.event.payload)"));
}

BOOST_AUTO_TEST_CASE(column_dropped_while_streaming_stops_the_router_without_confirming_the_row) {
    const auto db = create_outbox_database("dropcol");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec("ALTER TABLE outbox DROP COLUMN aggregateid");
    sql.exec("INSERT INTO outbox (id, aggregatetype, type, payload) VALUES (gen_random_uuid(), 'Order', 'x', '{}')");
    // Past the commit record: confirming this would let PostgreSQL skip the transaction. (The
    // slot may legitimately move up to the commit record's start: PostgreSQL replays every
    // transaction whose commit record is at or after the confirmed position.)
    const auto after_commit = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(router.wait(60s) == 1);
    BOOST_TEST(contains(last_line(router.output()), "has no column \"aggregateid\""));
    BOOST_TEST(confirmed_flush_lsn(db, db) < after_commit);
}

BOOST_AUTO_TEST_CASE(unroutable_row_stops_the_router_naming_table_column_and_lsn) {
    const auto db = create_outbox_database("badrow");
    Sql sql(postgres().conninfo(db));
    sql.exec("ALTER TABLE outbox ALTER COLUMN aggregatetype DROP NOT NULL");
    RouterProcess router(work_dir(), router_config(db));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES (gen_random_uuid(), NULL, 'k', 'x', '{}')");
    const auto after_commit = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(router.wait(60s) == 1);
    const auto line = last_line(router.output());
    BOOST_TEST(contains(line, "public.outbox"));
    BOOST_TEST(contains(line, "\"aggregatetype\""));
    BOOST_TEST(contains(line, "transaction committing at LSN"));
    BOOST_TEST(confirmed_flush_lsn(db, db) < after_commit);
    // A restart meets the same row again: it was not skipped.
    RouterProcess again(work_dir(), router_config(db));
    BOOST_TEST(again.wait(60s) == 1);
    BOOST_TEST(contains(last_line(again.output()), "\"aggregatetype\""));
}

// A partitioned outbox table: rows are decoded under the partitions' names unless the
// publication publishes via the root. The router creates its publication that way, so the rows
// arrive as public.outbox and are routed.
BOOST_AUTO_TEST_CASE(partitioned_outbox_table_is_published_via_its_root_and_routed) {
    const auto db = postgres().create_database("parted");
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE outbox (id uuid NOT NULL, aggregatetype text NOT NULL, aggregateid text NOT NULL, "
             "type text NOT NULL, payload jsonb, created_at timestamptz NOT NULL DEFAULT now()) "
             "PARTITION BY RANGE (created_at); "
             "CREATE TABLE outbox_old PARTITION OF outbox FOR VALUES FROM (MINVALUE) TO ('2000-01-01'); "
             "CREATE TABLE outbox_new PARTITION OF outbox FOR VALUES FROM ('2000-01-01') TO (MAXVALUE)");
    RouterProcess router(work_dir(), router_config(db, "", "", "outbox:\n  route.topic.replacement: parted.events\n"));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_TEST(contains(router.output(), "WITH (publish_via_partition_root = true)"));
    sql.exec(outbox_rows_sql(0, 3, 3, "Order") + "; " +
             "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at) VALUES "
             "(gen_random_uuid(), 'Order', 'key-old', 'Created', '{\"seq\": 3}', '1999-06-01')");
    BOOST_TEST(sequences_in("parted.events", 4, 30s) == (std::set<int>{0, 1, 2, 3}));
    BOOST_TEST(router.stop(SIGTERM) == 0);

    // Against a publication that publishes the partitions under their own names, start-up stops
    // with the fix, instead of skipping every row.
    sql.exec("ALTER PUBLICATION " + db + " SET (publish_via_partition_root = false)");
    RouterProcess refused(work_dir(), router_config(db, "", "", "outbox:\n  route.topic.replacement: parted.events\n"));
    BOOST_TEST(refused.wait(60s) == 1);
    const auto line = last_line(refused.output());
    BOOST_TEST(contains(line, "partitioned outbox table public.outbox"), line);
    BOOST_TEST(contains(line, "SET (publish_via_partition_root = true)"), line);
}

BOOST_AUTO_TEST_CASE(outbox_table_renamed_while_streaming_stops_the_router_without_confirming_its_rows) {
    const auto db = create_outbox_database("renamed");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec(outbox_rows_sql(0, 1, 1, "Order"));
    sql.exec("ALTER TABLE outbox RENAME TO events");
    sql.exec("INSERT INTO events (id, aggregatetype, aggregateid, type, payload) VALUES (gen_random_uuid(), 'Order', 'k', 'x', '{}')");
    const auto after_commit = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(router.wait(60s) == 1);
    const auto line = last_line(router.output());
    BOOST_TEST(contains(line, "outbox table public.outbox is now called public.events"), line);
    BOOST_TEST(confirmed_flush_lsn(db, db) < after_commit);
}

// A column renamed while events are in flight: the router stops at the first row it cannot read,
// but first waits for Kafka to acknowledge what it sent, so the slot is confirmed up to the
// rename and a restart with the setting changed as the error says starts after it.
BOOST_AUTO_TEST_CASE(after_a_column_rename_stops_the_router_the_changed_setting_carries_on) {
    const auto db = create_outbox_database("renamecol");
    Sql sql(postgres().conninfo(db));
    const std::string outbox = "outbox:\n  route.topic.replacement: renamecol.events\n";
    RouterProcess router(work_dir(), router_config(db, "", "", outbox));
    BOOST_REQUIRE(router.wait_streaming());
    auto* mock = kafka_cluster().mock();
    for (int broker = 1; broker <= 3; ++broker) rd_kafka_mock_broker_set_rtt(mock, broker, 1000);
    sql.exec(outbox_rows_sql(0, 50, 5, "Order"));
    sql.exec("ALTER TABLE outbox RENAME COLUMN aggregateid TO aggregate_key");
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregate_key, type, payload) "
             "VALUES (md5('50')::uuid, 'Order', 'key-0', 'Created', '{\"seq\": 50}')");
    BOOST_TEST(router.wait(60s) == 1);
    for (int broker = 1; broker <= 3; ++broker) rd_kafka_mock_broker_set_rtt(mock, broker, 0);
    BOOST_TEST(contains(last_line(router.output()), "has no column \"aggregateid\""));

    RouterProcess again(work_dir(), router_config(db, "", "", outbox + "  table.field.event.key: aggregate_key\n"));
    std::set<int> expected;
    for (int seq = 0; seq <= 50; ++seq) expected.insert(seq);
    BOOST_TEST(sequences_in("renamecol.events", 51, 30s) == expected);
    BOOST_TEST(again.stop(SIGTERM) == 0);
}

namespace {

// A loopback listener whose accept queue is full: the kernel drops further connection requests,
// so connecting to it times out, as to a host behind a firewall that drops packets.
class FullListener {
public:
    FullListener() : listener_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        BOOST_REQUIRE(::bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), length) == 0);
        BOOST_REQUIRE(::listen(listener_.get(), 0) == 0);
        BOOST_REQUIRE(::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
        port_ = ntohs(address.sin_port);
        // Fill the queue until a connection request goes unanswered.
        for (int i = 0; i < 8; ++i) {
            outbox::FileDescriptor filler(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
            ::connect(filler.get(), reinterpret_cast<sockaddr*>(&address), length);
            pollfd entry{filler.get(), POLLOUT, 0};
            const bool answered = ::poll(&entry, 1, 500) == 1;
            fillers_.push_back(std::move(filler));
            if (!answered) return;
        }
        BOOST_FAIL("the listener's accept queue does not fill");
    }
    int port() const { return port_; }

private:
    outbox::FileDescriptor listener_;
    int port_ = 0;
    std::vector<outbox::FileDescriptor> fillers_;
};

}  // namespace

// librdkafka says only "Local: Broker transport failure" when it reaches no broker: --check names
// why for each bootstrap server, from its own connection's error codes.
BOOST_AUTO_TEST_CASE(check_names_why_no_bootstrap_broker_is_reachable) {
    const auto db = create_outbox_database("check_unreachable");
    const FullListener full;
    const std::string refused = "127.0.0.1:" + std::to_string(free_loopback_port());
    const std::string silent = "127.0.0.1:" + std::to_string(full.port());
    std::string config = router_config(db);
    config.replace(config.find(kafka_servers()), kafka_servers().size(), refused + ",broker.invalid:9092," + silent);
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 1);
    const auto output = check.output();
    const auto at = output.find("FAIL  kafka: ");
    BOOST_REQUIRE(at != std::string::npos);
    const auto verdict = output.substr(at, output.find('\n', at) - at);
    BOOST_TEST_MESSAGE(verdict);
    BOOST_TEST(contains(verdict, "no bootstrap broker accepts connections"), verdict);
    BOOST_TEST(contains(verdict, refused + ": connection refused"), verdict);
    BOOST_TEST(contains(verdict, "broker.invalid:9092: host not found"), verdict);
    BOOST_TEST(contains(verdict, silent + ": connection timed out"), verdict);
    BOOST_TEST(!contains(verdict, "Broker transport failure"), verdict);
}

// One broker that answers is enough: then librdkafka's words stand, whatever the others do.
BOOST_AUTO_TEST_CASE(check_passes_when_one_bootstrap_broker_answers) {
    const auto db = create_outbox_database("check_one_answers");
    std::string config = router_config(db);
    config.replace(config.find(kafka_servers()), kafka_servers().size(),
                   "127.0.0.1:" + std::to_string(free_loopback_port()) + "," + kafka_servers());
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 0, check.output());
    BOOST_TEST(contains(check.output(), "ok    kafka: cluster metadata reachable"), check.output());
}
