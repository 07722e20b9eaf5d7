#define BOOST_TEST_MODULE faults_never_stuck
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <csignal>
#include <thread>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "http_get.hpp"
#include "tcp_proxy.hpp"
#include "topic_admin.hpp"

// A busy server is not a dead one, a dead connection is still noticed, and a lock on the outbox
// table neither stops the stream for good nor holds up a stop. On one real PostgreSQL server and
// one real broker.

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

// logical_decoding_work_mem for one test case: a transaction larger than it is spilled to disk
// and replayed from there at its commit.
struct DecodingMemory {
    explicit DecodingMemory(const std::string& value) { postgres().set("logical_decoding_work_mem", value); }
    ~DecodingMemory() { postgres().set("logical_decoding_work_mem", "64MB"); }
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

// Under JsonConverter with schemas the router reads NOT NULL and defaults from the catalog.
const std::string kSchemas = "value.converter: org.apache.kafka.connect.json.JsonConverter\n";

// The router made the slot and stopped: rows written now are decoded at the next start.
void make_slot(const std::string& db, const std::string& topic) {
    RouterProcess router(work_dir(), router_config(db, "", kSchemas, outbox_section(topic)));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_REQUIRE(router.stop(SIGTERM) == 0);
}

// Holds ACCESS EXCLUSIVE on the outbox table until release() or destruction.
struct TableLock {
    explicit TableLock(const std::string& db) : sql(postgres().conninfo(db)) {
        sql.exec("BEGIN");
        sql.exec("LOCK TABLE public.outbox IN ACCESS EXCLUSIVE MODE");
    }
    void release() {
        if (held) sql.exec("COMMIT");
        held = false;
    }
    ~TableLock() { release(); }
    Sql sql;
    bool held = true;
};

// The payload's seq, whether the payload is JSON or, under schemas, a JSON string holding it.
int seq_in(const ConsumedRecord& record) {
    const std::string& value = record.value.value();
    const auto digits = value.find_first_of("0123456789", value.find("seq"));
    return std::stoi(value.substr(digits));
}

// Records of seqs 0..expected-1 with schemas: how many are missing, how many came twice.
std::pair<int, int> missing_and_duplicates(const std::vector<ConsumedRecord>& records, int expected) {
    std::vector<int> seen(static_cast<std::size_t>(expected), 0);
    int duplicates = 0;
    for (const auto& record : records) {
        const int seq = seq_in(record);
        if (seq >= 0 && seq < expected && seen[static_cast<std::size_t>(seq)]++ > 0) ++duplicates;
    }
    return {static_cast<int>(std::count(seen.begin(), seen.end(), 0)), duplicates};
}

// The application_name of the session whose catalog read waits for the lock ("" while none does).
std::string catalog_read_waiting_on_lock(Sql& observer) {
    return observer.scalar("SELECT coalesce(min(application_name), '') FROM pg_stat_activity "
                           "WHERE wait_event_type = 'Lock' AND query LIKE '%pg_attrdef%'");
}

}  // namespace

// A table rewrite is replayed at its commit without a word to the client. Each connection
// given up there is decoded again up to the same place; the stream must get past it. The
// rewrite, the server's decoding memory and the limits are scaled down together: a rewrite too
// large for that memory is replayed from disk, and its silence outlasts the receive timeout
// several times over, so a router that gave up at the same limit every time would never get
// past it.
BOOST_AUTO_TEST_CASE(a_table_rewrite_longer_than_the_receive_timeout_is_waited_out) {
    const WalSenderTimeout sender_timeout("250ms");
    const DecodingMemory decoding_memory("64kB");
    const auto db = create_outbox_database("rewrite");
    const std::string topic = "rewrite.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE big (id int)");
    sql.exec("INSERT INTO big SELECT generate_series(1, 600000)");
    MeteredRouter router(router_config(db, "  receive.timeout.ms: 250\n  reconnect.backoff.max.ms: 250\n", "",
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
    BOOST_TEST_MESSAGE("600,000-row rewrite, receive.timeout.ms 250, wal_sender_timeout 250 ms: " << timeouts
                       << " silence timeouts; the next row " << (records.size() >= 2 ? "arrived" : "did not arrive")
                       << " after " << waited.count() << " s");
    const auto tally = tally_deliveries(records, 2);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

// A walsender decoding changes it does not publish sends a keepalive only every half
// wal_sender_timeout: a limit below that took a bulk write to another table for a dead server.
// Its decoding lasts several keepalive intervals.
BOOST_AUTO_TEST_CASE(a_bulk_write_to_an_unpublished_table_is_not_taken_for_a_dead_server) {
    const WalSenderTimeout sender_timeout("4s");
    const auto db = create_outbox_database("bulk");
    const std::string topic = "bulk.events";
    create_topic(kafka_servers(), topic, 1, 1);
    MeteredRouter router(router_config(db, "  receive.timeout.ms: 1000\n  reconnect.backoff.max.ms: 1000\n", "",
                                       outbox_section(topic)));
    BOOST_REQUIRE(router.process.wait_streaming());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);

    const auto started = std::chrono::steady_clock::now();
    sql.exec("INSERT INTO orders SELECT g, 'c', 1 FROM generate_series(1, 1000000) g");
    const auto written = std::chrono::steady_clock::now();
    sql.exec(outbox_rows_sql(1, 1, 1));
    const auto records = read_topic(kafka_servers(), topic, 2, 120s);
    const auto decoded = std::chrono::steady_clock::now();
    const int timeouts = occurrences(router.process.output(), "nothing received from the server");
    BOOST_TEST_MESSAGE("1,000,000 rows into an unpublished table, receive.timeout.ms 1000, wal_sender_timeout 4 s: "
                       << timeouts << " silence timeouts; the next row " << (records.size() >= 2 ? "arrived" : "did not arrive")
                       << " " << std::chrono::duration_cast<std::chrono::milliseconds>(decoded - written).count()
                       << " ms after the write's commit (the write took "
                       << std::chrono::duration_cast<std::chrono::milliseconds>(written - started).count() << " ms)");
    BOOST_TEST(timeouts == 0);
    BOOST_TEST(tally_deliveries(records, 2).missing == 0u);
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

// The column catalog is read on every RELATION; a migration holding the outbox table must not
// stop the loop (status updates, health) nor keep deliveries back once it ends.
BOOST_AUTO_TEST_CASE(a_locked_outbox_table_delays_deliveries_only_until_it_is_released) {
    const auto db = create_outbox_database("locked");
    const std::string topic = "locked.events";
    create_topic(kafka_servers(), topic, 1, 1);
    make_slot(db, topic);
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 5, 3));
    TableLock lock(db);
    MeteredRouter router(router_config(db, "  reconnect.backoff.max.ms: 1000\n", kSchemas, outbox_section(topic)));
    std::string name;
    BOOST_REQUIRE(wait_until([&] { return !(name = catalog_read_waiting_on_lock(sql)).empty(); }, 30s));
    int unhealthy = 0;
    for (int i = 0; i < 30; ++i) {
        if (http_get(router.port, "/healthz").status != 200) ++unhealthy;
        std::this_thread::sleep_for(500ms);
    }
    lock.release();
    BOOST_TEST_MESSAGE("15 s of ACCESS EXCLUSIVE on the outbox table: /healthz failed " << unhealthy
                       << " of 30 times; the catalog read ran as \"" << name << "\"");
    BOOST_TEST(unhealthy == 0);
    BOOST_TEST(name == "outbox-router-column-catalog");
    const auto [missing, duplicates] = missing_and_duplicates(read_topic(kafka_servers(), topic, 5), 5);
    BOOST_TEST(missing == 0);
    BOOST_TEST(duplicates == 0);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(sigterm_is_acted_on_while_the_catalog_read_waits_for_a_lock) {
    const auto db = create_outbox_database("lockstop");
    const std::string topic = "lockstop.events";
    create_topic(kafka_servers(), topic, 1, 1);
    make_slot(db, topic);
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 5, 3));
    TableLock lock(db);
    RouterProcess router(work_dir(), router_config(db, "", kSchemas, outbox_section(topic)));
    BOOST_REQUIRE(wait_until([&] { return !catalog_read_waiting_on_lock(sql).empty(); }, 30s));
    const auto signalled = std::chrono::steady_clock::now();
    const int status = router.stop(SIGTERM, 20s);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
    BOOST_TEST_MESSAGE("SIGTERM while the catalog read waits for a lock: exit " << status << " after " << took.count()
                       << " ms (the lock still held)");
    BOOST_TEST(lock.held);
    BOOST_TEST(status == 0);
}

// The type catalog is read when a RELATION has a column of a type only it explains (here a
// domain over integer). A server refusing that read (the role's connection limit reached) must
// not make the router route the column as text nor lose a row: the stream starts over with
// backoff until the read succeeds, then every row comes once with the domain's base type.
BOOST_AUTO_TEST_CASE(a_refused_type_catalog_read_is_retried_and_nothing_is_routed_as_text) {
    const auto db = create_outbox_database("typecat");
    const std::string role = db + "_router";
    const std::string topic = "typecat.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql owner(postgres().conninfo(db));
    owner.exec("CREATE DOMAIN positive AS integer CHECK (VALUE > 0); ALTER TABLE outbox ADD COLUMN amount positive; "
               "CREATE PUBLICATION " + db + " FOR TABLE outbox; CREATE ROLE " + role + " LOGIN REPLICATION");
    auto config = router_config(db, "  publication.autocreate.mode: disabled\n  reconnect.backoff.max.ms: 500\n",
                                "value.converter: org.apache.kafka.connect.json.JsonConverter\n"
                                "value.converter.schemas.enable: false\n",
                                outbox_section(topic) + "  table.fields.additional.placement: amount:envelope\n  table.expand.json.payload: true\n");
    const std::string user = "user=postgres";
    config.replace(config.find(user), user.size(), "user=" + role);
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());
    // A role's connection limit does not count its walsenders: 0 refuses the catalog's session only.
    owner.exec("ALTER ROLE " + role + " CONNECTION LIMIT 0");
    owner.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, amount) SELECT gen_random_uuid(), "
               "'Order', 'key-' || seq, 'Created', jsonb_build_object('seq', seq), seq + 1 FROM generate_series(0, 4) seq");
    BOOST_REQUIRE_MESSAGE(
        wait_until([&] { return occurrences(router.output(), "too many connections for role") >= 2; }, 60s),
        router.output());
    BOOST_TEST(read_topic(kafka_servers(), topic, 1, 2s).empty(), "a row went out before its column types were read");
    owner.exec("ALTER ROLE " + role + " CONNECTION LIMIT -1");
    const auto records = read_topic(kafka_servers(), topic, 5);
    const auto tally = tally_deliveries(records, 5);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    for (const auto& record : records)
        BOOST_TEST(contains(record.value.value_or(""), "\"amount\":" + std::to_string(seq_of(record) + 1) + "}"),
                   record.value.value_or("(null)"));
    BOOST_TEST(router.stop(SIGTERM) == 0, router.output());
}

// RELATION names a table by its OID; a name looked up at decode time may be another table by now.
BOOST_AUTO_TEST_CASE(rows_of_a_renamed_table_keep_their_own_columns_after_a_new_one_takes_its_name) {
    const auto db = create_outbox_database("renamed");
    const std::string topic = "renamed.events";
    create_topic(kafka_servers(), topic, 1, 1);
    make_slot(db, topic);
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 2, 2));
    sql.exec("ALTER TABLE outbox RENAME TO outbox_old");
    sql.exec("CREATE TABLE outbox (id uuid PRIMARY KEY, aggregatetype text NOT NULL, aggregateid text NOT NULL, "
             "type text NOT NULL, payload jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now())");
    sql.exec("ALTER PUBLICATION " + db + " ADD TABLE public.outbox");
    sql.exec(outbox_rows_sql(2, 2, 2));
    RouterProcess router(work_dir(), router_config(db, "", kSchemas, outbox_section(topic)));
    const auto records = read_topic(kafka_servers(), topic, 4);
    BOOST_REQUIRE(records.size() == 4u);
    for (const auto& record : records) {
        const bool old_row = seq_in(record) < 2;
        const auto& value = record.value.value();
        BOOST_TEST_MESSAGE("seq " << seq_in(record) << ": " << value.substr(0, value.find("\"payload\"")));
        BOOST_TEST(contains(value, "\"optional\":true") == old_row);
        BOOST_TEST(contains(value, "\"default\":") == !old_row);
    }
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// With the brokers away, a row placed on a partition is checked against the topic's partition
// count, which the cluster does not give: the loop must not wait for it row after row.
BOOST_AUTO_TEST_CASE(placed_rows_do_not_hold_up_the_loop_while_the_broker_is_away) {
    const auto db = create_outbox_database("placed");
    const std::string topic = "placed.events";
    create_topic(kafka_servers(), topic, 2, 1);
    Sql sql(postgres().conninfo(db));
    sql.exec("ALTER TABLE outbox ADD COLUMN shard int");
    MeteredRouter router(router_config(db, "", "shutdown.timeout.ms: 1000\n",
                                       outbox_section(topic) + "  table.fields.additional.placement: \"shard:partition\"\n"));
    BOOST_REQUIRE(router.process.wait_streaming());
    real_kafka().node(1).pause();
    for (int seq = 0; seq < 30; ++seq)
        sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, shard) VALUES (md5('" +
                 std::to_string(seq) + "')::uuid, 'Order', 'key-" + std::to_string(seq) + "', 'Created', '{\"seq\": " +
                 std::to_string(seq) + "}', " + std::to_string(seq % 2) + ")");
    int unhealthy = 0;
    for (int i = 0; i < 30; ++i) {
        if (http_get(router.port, "/healthz").status != 200) ++unhealthy;
        std::this_thread::sleep_for(500ms);
    }
    real_kafka().node(1).resume();
    BOOST_TEST_MESSAGE("30 placed rows with the broker away: /healthz failed " << unhealthy << " of 30 times in 15 s");
    BOOST_TEST(unhealthy == 0);
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 30), 30);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

// A server behind the timeline the router streamed from (a restored older copy) cannot say
// whether what the router handled is in its history: the router stops, and says why.
BOOST_AUTO_TEST_CASE(a_server_on_a_lower_timeline_stops_the_router_with_the_reason) {
    // Of its own: it is promoted, then replaced by its older copy. Its stops wait for the sessions
    // the stalled proxy holds: a walsender ends at wal_sender_timeout, a connection still logging
    // in at authentication_timeout, both 60 s by default, which is pg_ctl's own limit.
    PgServerOptions options;
    options.settings = "wal_sender_timeout = '5s'\nauthentication_timeout = '5s'\n";
    PgServer server(options);
    const std::string db = server.create_database("timeline");
    Sql(server.conninfo(db)).exec(read_file(std::string(OUTBOX_SOURCE_DIR) + "/sql/outbox.sql"));
    // Through a proxy, stalled while the server is a standby: a standby refuses logical decoding
    // with an error that would stop the router before the case is reached.
    TcpProxy proxy(server.port());
    std::string config = router_config(db, "  receive.timeout.ms: 2000\n  reconnect.backoff.max.ms: 500\n", "",
                                       outbox_section(db + ".events"));
    const auto shared = postgres().conninfo(db);
    config.replace(config.find(shared), shared.size(), server.conninfo(db));
    const std::string direct_port = "port=" + std::to_string(server.port());
    config.replace(config.find(direct_port), direct_port.size(), "port=" + std::to_string(proxy.port()));
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());

    const std::string copy = server.data_dir() + ".timeline1";
    proxy.stall();
    server.stop();
    BOOST_REQUIRE(std::system(("rm -rf " + shell_quote(copy) + " && cp -a " + shell_quote(server.data_dir()) + " " +
                               shell_quote(copy)).c_str()) == 0);
    write_file(server.data_dir() + "/standby.signal", "");
    server.start();
    Sql(server.conninfo(db)).exec("SELECT pg_promote()");
    BOOST_REQUIRE(wait_until([&] { return Sql(server.conninfo(db)).scalar("SELECT pg_is_in_recovery()") == "f"; }, 30s));
    proxy.resume();
    BOOST_REQUIRE(router.wait_streaming(2));

    server.stop();
    BOOST_REQUIRE(std::system(("rm -rf " + shell_quote(server.data_dir()) + " && mv " + shell_quote(copy) + " " +
                               shell_quote(server.data_dir())).c_str()) == 0);
    server.start();
    BOOST_REQUIRE(router.wait(60s) == 1);
    const auto cause = last_line(router.output());
    BOOST_TEST_MESSAGE("reconnected to timeline 1 after timeline 2: " << cause);
    BOOST_TEST(contains(cause, "the server is on timeline 1, but this router streamed from timeline 2"));
}

// Exactly-once set-up waits for Kafka's transaction coordinator; a stop must not wait with it.
// The slot exists (a first run made it), so the start goes on to init_transactions, which
// /healthz names while it waits.
BOOST_AUTO_TEST_CASE(sigterm_is_acted_on_while_exactly_once_set_up_waits_for_the_broker) {
    const auto db = create_outbox_database("eosstop");
    const std::string topic = "eosstop.events";
    create_topic(kafka_servers(), topic, 1, 1);
    create_topic(kafka_servers(), topic + ".offsets", 1, 1, {{"cleanup.policy", "compact"}});
    const std::string config = router_config(
        db, "", "delivery.guarantee: exactly-once\noffsets.topic: " + topic + ".offsets\nshutdown.timeout.ms: 1000\n",
        outbox_section(topic));
    {
        RouterProcess first(work_dir(), config);
        BOOST_REQUIRE(first.wait_streaming());
        BOOST_REQUIRE(first.stop(SIGTERM) == 0);
    }
    real_kafka().node(1).pause();
    MeteredRouter router(config);
    const bool setting_up = wait_until(
        [&] { return contains(http_get(router.port, "/healthz").body, "waiting for Kafka: init_transactions"); }, 30s);
    std::this_thread::sleep_for(2s);
    const bool live = http_get(router.port, "/healthz").status == 200;
    const auto signalled = std::chrono::steady_clock::now();
    const int status = router.process.stop(SIGTERM, 20s);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
    real_kafka().node(1).resume();
    BOOST_TEST_MESSAGE("SIGTERM while init_transactions waits for a paused broker: exit " << status << " after "
                       << took.count() << " ms");
    BOOST_TEST(setting_up);
    BOOST_TEST(live);
    BOOST_TEST(status == 0);
}

// A Kafka transaction's commit is retried while Kafka is away; after a stop request it has
// shutdown.timeout.ms, as the deliveries do, and no more.
BOOST_AUTO_TEST_CASE(sigterm_is_acted_on_while_a_kafka_commit_waits_for_the_broker) {
    const auto db = create_outbox_database("eoscommit");
    const std::string topic = "eoscommit.events";
    create_topic(kafka_servers(), topic, 1, 1);
    create_topic(kafka_servers(), topic + ".offsets", 1, 1, {{"cleanup.policy", "compact"}});
    RouterProcess router(work_dir(), router_config(db, "", "delivery.guarantee: exactly-once\noffsets.topic: " + topic +
                                                               ".offsets\ntransaction.max.events: 1\n"
                                                               "shutdown.timeout.ms: 1000\n",
                                                   outbox_section(topic)));
    BOOST_REQUIRE(router.wait_streaming());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);
    real_kafka().node(1).pause();
    sql.exec(outbox_rows_sql(1, 1, 1));
    std::this_thread::sleep_for(3s);
    const auto signalled = std::chrono::steady_clock::now();
    const int status = router.stop(SIGTERM, 20s);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
    real_kafka().node(1).resume();
    BOOST_TEST_MESSAGE("SIGTERM while a Kafka commit waits for a paused broker (shutdown.timeout.ms 1000): exit "
                       << status << " after " << took.count() << " ms");
    BOOST_TEST(status == 0);
}

namespace {

// A config for the real broker pointed at librdkafka's mock cluster instead.
std::string on_mock_cluster(std::string config) {
    const std::string real = kafka_servers();
    BOOST_REQUIRE(contains(config, real));
    return config.replace(config.find(real), real.size(), kafka_cluster().bootstrap_servers());
}

}  // namespace

// Exactly-once reads the offsets topic before the stream starts. A broker slow to answer that
// read must not hold up a stop. On the mock cluster, which alone can hold back one answer.
BOOST_AUTO_TEST_CASE(sigterm_is_acted_on_while_the_offsets_topic_read_waits_for_the_broker) {
    const auto db = create_outbox_database("offsetsread");
    const std::string topic = "offsetsread.events";
    const std::string offsets = topic + ".offsets";
    auto* mock = kafka_cluster().mock();
    BOOST_REQUIRE(rd_kafka_mock_topic_create(mock, offsets.c_str(), 1, 1) == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_REQUIRE(rd_kafka_mock_partition_set_leader(mock, offsets.c_str(), 0, 2) == RD_KAFKA_RESP_ERR_NO_ERROR);
    // The read's first Fetch is answered a minute late: past the read's own limit.
    BOOST_REQUIRE(rd_kafka_mock_broker_push_request_error_rtts(mock, 2, 1 /* Fetch */, 1, RD_KAFKA_RESP_ERR_NO_ERROR,
                                                               60000) == RD_KAFKA_RESP_ERR_NO_ERROR);
    MeteredRouter router(on_mock_cluster(router_config(
        db, "", "delivery.guarantee: exactly-once\noffsets.topic: " + offsets + "\nshutdown.timeout.ms: 1000\n",
        outbox_section(topic))));
    const bool setting_up = wait_until(
        [&] { return contains(http_get(router.port, "/healthz").body, "waiting for Kafka: the offsets topic"); }, 30s);
    std::this_thread::sleep_for(3s);
    const bool streaming = router.process.times_streamed() > 0;
    const auto signalled = std::chrono::steady_clock::now();
    const int status = router.process.stop(SIGTERM, 20s);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
    BOOST_TEST_MESSAGE("SIGTERM while the offsets topic's Fetch is held back: exit " << status << " after " << took.count()
                       << " ms");
    BOOST_TEST(setting_up);
    BOOST_TEST(!streaming);
    BOOST_TEST(status == 0);
}

// librdkafka's own queue may hold fewer records than the in-flight limits let through. With the
// broker away it fills up: the loop must go on (health, status updates, a stop), and the records
// it could not hand over come again from the slot.
BOOST_AUTO_TEST_CASE(a_full_librdkafka_queue_holds_up_neither_the_loop_nor_a_stop) {
    const auto db = create_outbox_database("queuefull");
    const std::string topic = "queuefull.events";
    create_topic(kafka_servers(), topic, 1, 1);
    const std::string config = router_config(db, "", "  queue.buffering.max.messages: 5\nshutdown.timeout.ms: 1000\n",
                                             outbox_section(topic));
    Sql sql(postgres().conninfo(db));
    {
        MeteredRouter router(config);
        BOOST_REQUIRE(router.process.wait_streaming());
        sql.exec(outbox_rows_sql(0, 1, 1));
        BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);
        real_kafka().node(1).pause();
        sql.exec(outbox_rows_sql(1, 30, 3));
        int unhealthy = 0;
        for (int i = 0; i < 24; ++i) {
            if (http_get(router.port, "/healthz").status != 200) ++unhealthy;
            std::this_thread::sleep_for(500ms);
        }
        const auto signalled = std::chrono::steady_clock::now();
        const int status = router.process.stop(SIGTERM, 20s);
        const auto took =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
        real_kafka().node(1).resume();
        BOOST_TEST_MESSAGE("queue.buffering.max.messages 5, 30 rows, broker paused: /healthz failed "
                           << unhealthy << " of 24 times in 12 s; SIGTERM: exit " << status << " after " << took.count()
                           << " ms");
        BOOST_TEST(unhealthy == 0);
        BOOST_TEST(status == 0);
    }
    RouterProcess restarted(work_dir(), config);
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 31), 31);
    BOOST_TEST_MESSAGE("after a restart: " << tally);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(restarted.stop(SIGTERM) == 0);
}

// heartbeat.action.query runs on a connection of its own. A statement stuck behind another
// session's lock is ended by lock_timeout and reported, does not hold up a stop, and does not
// run after the router has gone (a server-side wait outlives the client that closed).
BOOST_AUTO_TEST_CASE(a_heartbeat_waiting_for_a_lock_is_reported_and_holds_up_no_stop) {
    const auto db = create_outbox_database("beatlock");
    const std::string topic = "beatlock.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE TABLE beats (at timestamptz)");
    make_slot(db, topic);  // creating a slot would wait for the lock holder's transaction
    Sql holder(postgres().conninfo(db));
    holder.exec("BEGIN");
    holder.exec("LOCK TABLE beats IN ACCESS EXCLUSIVE MODE");
    const auto heartbeat_waiting = [&] {
        return sql.scalar("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND "
                          "query LIKE 'INSERT INTO beats%'") != "0";
    };
    RouterProcess router(work_dir(), router_config(db,
                                                   "  heartbeat.interval.ms: 500\n"
                                                   "  heartbeat.action.query: \"INSERT INTO beats VALUES (now())\"\n",
                                                   "", outbox_section(topic)));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_REQUIRE(wait_until(heartbeat_waiting, 30s));
    const bool reported = wait_until([&] { return contains(router.output(), "heartbeat: postgres: heartbeat.action.query"); }, 15s);
    sql.exec(outbox_rows_sql(0, 3, 3));
    const bool delivered = read_topic(kafka_servers(), topic, 3).size() == 3u;
    BOOST_REQUIRE(wait_until(heartbeat_waiting, 30s));
    const auto signalled = std::chrono::steady_clock::now();
    const int status = router.stop(SIGTERM, 20s);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
    const bool left_waiting = !wait_until([&] { return !heartbeat_waiting(); }, 10s);
    holder.exec("COMMIT");
    const auto ran_late = sql.scalar("SELECT count(*) FROM beats");
    BOOST_TEST_MESSAGE("heartbeat behind a lock: reported " << reported << "; SIGTERM: exit " << status << " after "
                       << took.count() << " ms; its statement still waiting 10 s after the exit: " << left_waiting
                       << ", rows it wrote once the lock was released: " << ran_late);
    BOOST_TEST(reported);
    BOOST_TEST(delivered);
    BOOST_TEST(status == 0);
    BOOST_TEST(!left_waiting);
    BOOST_TEST(ran_late == "0");
}

// A broker that refuses to let the router read the offsets topic (no Read ACL) refuses again at
// every reconnect: exactly-once cannot resume without the position, so the router stops and
// says why. On the mock cluster, which alone injects the error code on the read.
BOOST_AUTO_TEST_CASE(an_offsets_topic_the_router_may_not_read_stops_it_with_the_reason) {
    const auto db = create_outbox_database("offsetsacl");
    const std::string topic = "offsetsacl.events";
    const std::string offsets = topic + ".offsets";
    auto* mock = kafka_cluster().mock();
    BOOST_REQUIRE(rd_kafka_mock_topic_create(mock, offsets.c_str(), 1, 1) == RD_KAFKA_RESP_ERR_NO_ERROR);
    for (const int api : {1 /* Fetch */, 2 /* ListOffsets */})
        for (int i = 0; i < 50; ++i)
            rd_kafka_mock_push_request_errors(mock, api, 1, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
    RouterProcess router(work_dir(), on_mock_cluster(router_config(
                                         db, "  reconnect.backoff.max.ms: 500\n",
                                         "delivery.guarantee: exactly-once\noffsets.topic: " + offsets + "\n",
                                         outbox_section(topic))));
    const int status = router.wait(60s);
    rd_kafka_mock_clear_request_errors(mock, 1);
    rd_kafka_mock_clear_request_errors(mock, 2);
    const auto cause = last_line(router.output());
    BOOST_TEST_MESSAGE("offsets topic read refused (TOPIC_AUTHORIZATION_FAILED): exit " << status << ", reconnects "
                       << occurrences(router.output(), "reconnecting") << "; " << cause);
    BOOST_TEST(status == 1);
    BOOST_TEST(contains(cause, "reading the offsets topic " + offsets));
    BOOST_TEST(contains(cause, "needs Read"));
}

// A stop that ends a wait for room in librdkafka's queue is still a clean stop: what Kafka
// acknowledges during shutdown.timeout.ms is confirmed, so a restart publishes nothing twice.
BOOST_AUTO_TEST_CASE(a_stop_during_a_wait_for_room_confirms_what_kafka_acknowledged) {
    const auto db = create_outbox_database("queuestop");
    const std::string topic = "queuestop.events";
    create_topic(kafka_servers(), topic, 1, 1);
    const std::string config = router_config(db, "", "  queue.buffering.max.messages: 5\nshutdown.timeout.ms: 10000\n",
                                             outbox_section(topic));
    constexpr int kRows = 30;
    Sql sql(postgres().conninfo(db));
    {
        RouterProcess router(work_dir(), config);
        BOOST_REQUIRE(router.wait_streaming());
        sql.exec(outbox_rows_sql(0, 1, 1));
        BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);
        // One transaction per row, so that each acknowledged record is a confirmable transaction.
        real_kafka().node(1).pause();
        for (int seq = 1; seq < kRows; ++seq) sql.exec(outbox_rows_sql(seq, 1, 1));
        std::this_thread::sleep_for(2s);  // the queue fills, and the router waits for room
        BOOST_REQUIRE(::kill(router.pid(), SIGTERM) == 0);
        real_kafka().node(1).resume();
        BOOST_TEST(router.wait(30s) == 0);
    }
    RouterProcess restarted(work_dir(), config);
    BOOST_REQUIRE(restarted.wait_streaming());
    sql.exec(outbox_rows_sql(kRows, 1, 1));  // the last: everything replayed comes before it
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, kRows + 1), kRows + 1);
    BOOST_TEST_MESSAGE("SIGTERM while waiting for room, the broker back at once; after a restart: " << tally);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(restarted.stop(SIGTERM) == 0);
}

// Creating a slot waits, without a word to the client, for the transactions running when it was
// asked for. Past the answer limit (postgres.receive.timeout.ms) the router asks the server, which
// says the statement waits for a lock: the router waits on, with a warning, and /healthz sees
// progress all along.
BOOST_AUTO_TEST_CASE(slot_creation_behind_a_running_transaction_is_waited_out_showing_progress) {
    const auto db = create_outbox_database("slotwait");
    const std::string topic = "slotwait.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql running(postgres().conninfo(db));
    running.exec("BEGIN");
    running.exec("INSERT INTO orders VALUES (1, 'x', 1)");  // a transaction id the new slot waits for
    MeteredRouter router(router_config(db, "  receive.timeout.ms: 1000\n", "", outbox_section(topic)));
    Sql observer(postgres().conninfo(db));
    BOOST_REQUIRE(wait_until([&] {
        return observer.scalar("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender' "
                               "AND wait_event_type = 'Lock'") == "1";
    }, 30s));
    int unhealthy = 0;
    for (int i = 0; i < 26; ++i) {
        if (http_get(router.port, "/healthz").status != 200) ++unhealthy;
        std::this_thread::sleep_for(500ms);
    }
    BOOST_TEST(unhealthy == 0);
    BOOST_TEST(contains(router.process.output(), "the server is working on it (Lock: transactionid); waiting on"),
               router.process.output());
    BOOST_TEST(!contains(router.process.output(), "no answer to"), router.process.output());
    running.exec("COMMIT");
    BOOST_REQUIRE(router.process.wait_streaming());
    observer.exec(outbox_rows_sql(0, 3, 1));
    BOOST_TEST(read_topic(kafka_servers(), topic, 3).size() == 3u);
    BOOST_TEST(router.value("outbox_router_reconnects_total") == 0);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

// The same wait with the network path stalled (a hung proxy still acknowledges TCP, so the
// kernel cannot tell): the server cannot be asked either, so set-up is given up and retried, and
// the router streams once the path and the transaction are gone.
BOOST_AUTO_TEST_CASE(a_set_up_statement_without_an_answer_is_given_up_and_retried) {
    const auto db = create_outbox_database("setupstall");
    const std::string topic = "setupstall.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql running(postgres().conninfo(db));
    running.exec("BEGIN");
    running.exec("INSERT INTO orders VALUES (1, 'x', 1)");
    TcpProxy proxy(postgres().port());
    RouterProcess router(work_dir(), through(proxy, router_config(db, "  receive.timeout.ms: 1000\n"
                                                                      "  reconnect.backoff.max.ms: 1000\n",
                                                                  "", outbox_section(topic))));
    BOOST_REQUIRE(wait_until([&] { return contains(router.output(), "the server is working on it"); }, 30s));
    proxy.stall();
    BOOST_TEST(wait_until([&] { return contains(router.output(), "no answer to creating replication slot"); }, 30s),
               router.output());
    BOOST_TEST(router.running());
    proxy.resume();
    running.exec("COMMIT");
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 3, 1));
    BOOST_TEST(read_topic(kafka_servers(), topic, 3).size() == 3u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
