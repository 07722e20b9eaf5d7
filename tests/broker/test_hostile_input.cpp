#define BOOST_TEST_MODULE broker_hostile_input
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "http_get.hpp"
#include "topic_admin.hpp"

// Rows, broker answers and connections a new user can produce on purpose or by accident, on one
// real broker. Each must end as a published record, a dead letter or a definite error naming
// what is wrong: never a crash, a loop, a silent skip or a duplicate without a crash.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

std::string outbox_section(const std::string& topic, const std::string& extra = "") {
    return "outbox:\n  route.topic.replacement: " + topic + "\n" + extra;
}

std::string dead_letters_to(const std::string& topic) {
    return "errors.tolerance: all\nerrors.deadletterqueue.topic.name: " + topic + "\n";
}

void wait_confirmed_past_the_writes(const std::string& db) {
    const auto written = lsn_value(Sql(postgres().conninfo(db)).scalar("SELECT pg_current_wal_lsn()"));
    BOOST_REQUIRE_MESSAGE(wait_until([&] { return confirmed_flush_lsn(db, db) >= written; }, 120s),
                          "the slot did not move past the last write");
}

// A router with its metrics endpoint on a free port.
struct MeteredRouter {
    MeteredRouter(const std::string& config_without_metrics)
        : port(static_cast<std::uint16_t>(free_loopback_port())),
          process(work_dir(), config_without_metrics + "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n") {}
    double value(const std::string& series) const {
        return sample_value(http_get(port, "/metrics").body, series).value_or(-1);
    }
    std::uint16_t port;
    RouterProcess process;
};

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

BOOST_AUTO_TEST_CASE(json_nested_100000_deep_is_published_as_text_or_dead_lettered_never_a_crash) {
    const auto db = create_outbox_database("deepjson");
    Sql sql(postgres().conninfo(db));
    sql.exec("ALTER TABLE outbox ALTER COLUMN payload TYPE text");
    RouterProcess router(work_dir(), router_config(db, "", dead_letters_to("deepjson.dlq"),
                                                   outbox_section("deepjson.events", "  table.expand.json.payload: true\n"
                                                                                     "  message.prefix.include.list: outbox\n")));
    BOOST_REQUIRE(router.wait_streaming());
    const std::string deep = "{\"a\":" + nested(100000) + "}";
    sql.exec(outbox_rows_sql(0, 1, 1));
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES "
             "(gen_random_uuid(), 'Order', 'key-deep', 'Created', '" + deep + "')");
    sql.exec("SELECT pg_logical_emit_message(true, 'outbox', '{\"id\": \"m1\", \"aggregatetype\": \"Order\", "
             "\"aggregateid\": \"key-m\", \"payload\": " + nested(100000) + "}')");
    sql.exec(outbox_rows_sql(1, 1, 1));

    const auto records = read_topic(kafka_servers(), "deepjson.events", 3);
    BOOST_REQUIRE(records.size() == 3u);
    const auto kept = std::find_if(records.begin(), records.end(), [](const auto& r) { return r.key == "key-deep"; });
    BOOST_REQUIRE(kept != records.end());
    BOOST_TEST((kept->value == deep));  // kept as text, as any payload that cannot be expanded
    const auto letters = read_topic(kafka_servers(), "deepjson.dlq", 1);
    BOOST_REQUIRE(letters.size() == 1u);
    BOOST_TEST(contains(letters[0].header("__connect.errors.exception.message").value_or(""),
                        "the content nests arrays and objects deeper than 1000 levels"));
    BOOST_TEST(letters[0].header("__outbox.errors.source").value_or("") == "message prefix outbox");
    BOOST_TEST(router.running());
    BOOST_TEST(contains(router.output(), "deeper than 1000 levels"));
    wait_confirmed_past_the_writes(db);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_reconnect_does_not_send_again_what_the_producer_already_has) {
    const auto db = create_outbox_database("reconnect");
    const std::string topic = "reconnect.events";
    create_topic(kafka_servers(), topic, 3, 1);
    Sql sql(postgres().conninfo(db));
    MeteredRouter router(router_config(db, "", "", outbox_section(topic)));
    BOOST_REQUIRE(router.process.wait_streaming());
    sql.exec(outbox_rows_sql(0, 5, 7));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 5).size() == 5u);

    real_kafka().node(1).pause();
    for (int t = 0; t < 10; ++t) sql.exec("BEGIN; " + outbox_rows_sql(5 + t * 5, 5, 7) + "; COMMIT;");
    BOOST_REQUIRE(wait_until([&] { return router.value("outbox_router_in_flight_messages") == 50; }, 30s));
    sql.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + db + "'");
    BOOST_REQUIRE(router.process.wait_streaming(2));
    std::this_thread::sleep_for(2s);  // the server replays the unconfirmed transactions meanwhile
    real_kafka().node(1).resume();

    wait_confirmed_past_the_writes(db);
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 55), 55);
    BOOST_TEST_MESSAGE("walsender terminated with 50 events in flight: " << tally);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(tally.order_kept);
    BOOST_TEST(router.value("outbox_router_reconnects_total") == 1);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_record_too_large_for_its_topic_is_dead_lettered_without_its_value) {
    const auto db = create_outbox_database("oversize");
    create_topic(kafka_servers(), "oversize.events", 1, 1, {{"max.message.bytes", "20000"}});
    create_topic(kafka_servers(), "oversize.dlq", 1, 1, {{"max.message.bytes", "20000"}});
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db, "", dead_letters_to("oversize.dlq"), outbox_section("oversize.events")));
    BOOST_REQUIRE(router.wait_streaming());
    // One at a time: a broker refuses a whole produce batch, so batch-mates would be refused too.
    const std::string pad(30000, 'x');
    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_REQUIRE(read_topic(kafka_servers(), "oversize.events", 1).size() == 1u);
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES "
             "(gen_random_uuid(), 'Order', 'key-big', 'Created', '{\"pad\": \"" + pad + "\"}')");
    const auto letters = read_topic(kafka_servers(), "oversize.dlq", 1);
    BOOST_REQUIRE_MESSAGE(letters.size() == 1u, router.output());
    BOOST_TEST(!letters[0].value.has_value());
    BOOST_TEST(letters[0].key.value_or("") == "key-big");
    BOOST_TEST(contains(letters[0].header("__outbox.errors.value.dropped").value_or(""), "MSG_SIZE_TOO_LARGE"));
    BOOST_TEST(letters[0].header("__outbox.errors.value.size").value_or("") ==
               std::to_string(std::string("{\"pad\": \"" + pad + "\"}").size()));
    BOOST_TEST(letters[0].header("id").has_value());
    sql.exec(outbox_rows_sql(1, 1, 1));
    const auto tally = tally_deliveries(read_topic(kafka_servers(), "oversize.events", 2), 2);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    wait_confirmed_past_the_writes(db);
    BOOST_TEST(router.running());
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_partition_placement_past_the_topics_partitions_is_an_invalid_row_before_producing) {
    // In one transaction: seq 0 to partition 1, seq 1 to partition 5 (the topic has 2), seq 2 to 0.
    const auto rows_with_shards = [](const std::string& db) {
        Sql sql(postgres().conninfo(db));
        sql.exec("ALTER TABLE outbox ADD COLUMN shard int");
        std::string statement = "BEGIN;";
        const int shards[] = {1, 5, 0};
        for (int seq = 0; seq < 3; ++seq)
            statement += " INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, shard) VALUES (md5('" +
                         std::to_string(seq) + "')::uuid, 'Order', 'key-" + std::to_string(seq) +
                         "', 'Created', '{\"seq\": " + std::to_string(seq) + "}', " + std::to_string(shards[seq]) + ");";
        sql.exec(statement + " COMMIT;");
    };
    const std::string placement = "  table.fields.additional.placement: \"shard:partition\"\n";

    const auto tolerant = create_outbox_database("partall");
    create_topic(kafka_servers(), "partall.events", 2, 1);
    RouterProcess router(work_dir(), router_config(tolerant, "", dead_letters_to("partall.dlq"),
                                                   outbox_section("partall.events", placement)));
    BOOST_REQUIRE(router.wait_streaming());
    rows_with_shards(tolerant);
    const auto letters = read_topic(kafka_servers(), "partall.dlq", 1);
    BOOST_REQUIRE(letters.size() == 1u);
    const auto cause = letters[0].header("__connect.errors.exception.message").value_or("");
    BOOST_TEST_MESSAGE("out of range: " << cause);
    BOOST_TEST(contains(cause, "public.outbox, column \"shard\" (table.fields.additional.placement), transaction committing at LSN"));
    BOOST_TEST(contains(cause, "partition 5 is out of range: topic \"partall.events\" has 2 partitions"));
    const auto published = read_topic(kafka_servers(), "partall.events", 2);
    BOOST_REQUIRE(published.size() == 2u);
    for (const auto& record : published) BOOST_TEST(record.partition == (seq_of(record) == 0 ? 1 : 0));
    wait_confirmed_past_the_writes(tolerant);
    BOOST_TEST(router.stop(SIGTERM) == 0);

    // errors.tolerance none: the router stops at the row, before producing the rows after it.
    const auto strict = create_outbox_database("partnone");
    create_topic(kafka_servers(), "partnone.events", 2, 1);
    RouterProcess stopping(work_dir(), router_config(strict, "", "", outbox_section("partnone.events", placement)));
    BOOST_REQUIRE(stopping.wait_streaming());
    rows_with_shards(strict);
    BOOST_TEST(stopping.wait(60s) == 1);
    BOOST_TEST(contains(last_line(stopping.output()), "column \"shard\""));
    BOOST_TEST(contains(last_line(stopping.output()), "partition 5 is out of range"));
    const auto before_the_row = read_topic(kafka_servers(), "partnone.events", 1, 10s);
    BOOST_TEST(before_the_row.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_timestamp_the_topic_refuses_follows_errors_tolerance_instead_of_replaying_for_ever) {
    const std::map<std::string, std::string> recent_only{{"message.timestamp.before.max.ms", "3600000"}};
    const std::string timestamp_column = "  table.field.event.timestamp: created_at\n";
    const auto old_row = [](const std::string& db, int seq) {
        Sql(postgres().conninfo(db))
            .exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at) VALUES (md5('" +
                  std::to_string(seq) + "')::uuid, 'Order', 'key-0', 'Created', '{\"seq\": " + std::to_string(seq) +
                  "}', now() - interval '2 days')");
    };

    const auto strict = create_outbox_database("tsnone");
    create_topic(kafka_servers(), "tsnone.events", 1, 1, recent_only);
    RouterProcess stopping(work_dir(), router_config(strict, "", "", outbox_section("tsnone.events", timestamp_column)));
    BOOST_REQUIRE(stopping.wait_streaming());
    old_row(strict, 0);
    BOOST_TEST(stopping.wait(60s) == 1);
    BOOST_TEST_MESSAGE("old timestamp, errors.tolerance none: " << last_line(stopping.output()));
    BOOST_TEST(contains(last_line(stopping.output()), "Invalid timestamp"));
    BOOST_TEST(!contains(stopping.output(), "replacing the producer"));

    const auto tolerant = create_outbox_database("tsall");
    create_topic(kafka_servers(), "tsall.events", 1, 1, recent_only);
    RouterProcess router(work_dir(), router_config(tolerant, "", dead_letters_to("tsall.dlq"),
                                                   outbox_section("tsall.events", timestamp_column)));
    BOOST_REQUIRE(router.wait_streaming());
    old_row(tolerant, 0);
    const auto letters = read_topic(kafka_servers(), "tsall.dlq", 1);
    BOOST_REQUIRE_MESSAGE(letters.size() == 1u, router.output());
    Sql(postgres().conninfo(tolerant)).exec(outbox_rows_sql(1, 1, 1));
    BOOST_TEST(contains(letters[0].header("__connect.errors.exception.message").value_or(""), "Invalid timestamp"));
    const auto published = read_topic(kafka_servers(), "tsall.events", 1);
    BOOST_REQUIRE(published.size() == 1u);
    BOOST_TEST(seq_of(published[0]) == 1);
    wait_confirmed_past_the_writes(tolerant);
    BOOST_TEST(!contains(router.output(), "replacing the producer"));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_slot_created_with_two_phase_is_refused_at_start) {
    const auto db = create_outbox_database("twophase");
    Sql(postgres().conninfo(db)).exec("SELECT pg_create_logical_replication_slot('" + db + "', 'pgoutput', false, true)");
    const auto config = router_config(db, "", "", outbox_section("twophase.events"));
    RouterProcess router(work_dir(), config);
    BOOST_TEST(router.wait(60s) == 1);
    BOOST_TEST_MESSAGE("two_phase slot: " << last_line(router.output()));
    BOOST_TEST(contains(last_line(router.output()), "was created with two_phase"));
    std::string output;
    BOOST_TEST(run_router("--config " + router.config_path() + " --check", output) == 1);
    BOOST_TEST(contains(output, "two_phase"));
}

BOOST_AUTO_TEST_CASE(transactions_behind_a_stuck_event_are_bounded_by_the_in_flight_limit) {
    const auto db = create_outbox_database("pending");
    const std::string topic = "pending.events";
    create_topic(kafka_servers(), topic, 1, 1);
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE PUBLICATION " + db + " FOR TABLE outbox, orders");
    sql.exec("CREATE PROCEDURE many_transactions(n int) LANGUAGE plpgsql AS $$ BEGIN "
             "FOR i IN 1..n LOOP INSERT INTO orders VALUES (i, 'c', 1); COMMIT; END LOOP; END $$");
    MeteredRouter router(router_config(db, "", "max.inflight.messages: 1000\n", outbox_section(topic)));
    BOOST_REQUIRE(router.process.wait_streaming());
    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);
    const long rss_before = peak_rss_kib(router.process.pid());

    real_kafka().node(1).pause();
    sql.exec(outbox_rows_sql(1, 1, 1));
    BOOST_REQUIRE(wait_until([&] { return router.value("outbox_router_in_flight_messages") == 1; }, 30s));
    std::thread writer([&] {
        Sql fill(postgres().conninfo(db));
        fill.exec("SET synchronous_commit = off");
        fill.exec("CALL many_transactions(300000)");
    });
    double most_pending = 0;
    BOOST_TEST(wait_until(
        [&] {
            most_pending = std::max(most_pending, router.value("outbox_router_pending_transactions"));
            return most_pending >= 1000;
        },
        120s));
    writer.join();
    for (int i = 0; i < 10; ++i) {
        most_pending = std::max(most_pending, router.value("outbox_router_pending_transactions"));
        std::this_thread::sleep_for(200ms);
    }
    const long rss_stuck = peak_rss_kib(router.process.pid());
    real_kafka().node(1).resume();

    BOOST_TEST_MESSAGE("300,000 transactions behind a stuck event: at most " << most_pending
                       << " pending, peak RSS " << rss_before / 1024 << " → " << rss_stuck / 1024 << " MiB");
    BOOST_TEST(most_pending <= 1001);
    BOOST_TEST(rss_stuck - rss_before < 16 * 1024);
    wait_confirmed_past_the_writes(db);
    BOOST_TEST(tally_deliveries(read_topic(kafka_servers(), topic, 2), 2).missing == 0u);
    BOOST_TEST(router.value("outbox_router_pending_transactions") == 0);
    BOOST_TEST(router.process.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(exactly_once_set_up_longer_than_wal_sender_timeout_keeps_its_connection) {
    const auto db = create_outbox_database("eosslow");
    const std::string topic = "eosslow.events";
    create_topic(kafka_servers(), topic, 1, 1);
    create_topic(kafka_servers(), topic + ".offsets", 1, 1, {{"cleanup.policy", "compact"}});
    postgres().set("wal_sender_timeout", "2s");
    real_kafka().node(1).pause();
    RouterProcess router(work_dir(), router_config(db, "", "delivery.guarantee: exactly-once\noffsets.topic: " + topic +
                                                               ".offsets\n",
                                                   outbox_section(topic)));
    std::this_thread::sleep_for(8s);
    real_kafka().node(1).resume();
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 5, 3));
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 5), 5);
    postgres().set("wal_sender_timeout", "60s");
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(!contains(router.output(), "reconnecting"));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

namespace {

// The whole data directory, copied while the server is stopped: what a restore from a file-level
// backup, or a standby that missed the newest WAL, brings back (slots included).
void copy_data_directory(const std::string& from, const std::string& to) {
    BOOST_REQUIRE(std::system(("rm -rf " + shell_quote(to) + " && cp -a " + shell_quote(from) + " " + shell_quote(to)).c_str()) == 0);
}

std::uint64_t slot_position(PgServer& server, const std::string& db) {
    return lsn_value(Sql(server.conninfo(db)).scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + db + "'"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_position_past_the_servers_wal_is_refused_in_both_delivery_modes) {
    PgServer server;  // of its own: its data directory goes back in time
    const auto config_for = [&](const std::string& db, const std::string& top) {
        std::string config = router_config(db, "  reconnect.backoff.max.ms: 1000\n", top, outbox_section(db + ".events"));
        const auto shared = postgres().conninfo(db);
        return config.replace(config.find(shared), shared.size(), server.conninfo(db));
    };
    const auto at_least_once = server.create_database("restored");
    const auto exactly_once = server.create_database("restoredeos");
    for (const auto& db : {at_least_once, exactly_once})
        Sql(server.conninfo(db)).exec(read_file(std::string(OUTBOX_SOURCE_DIR) + "/sql/outbox.sql"));
    const std::string eos = "delivery.guarantee: exactly-once\noffsets.topic: " + exactly_once + ".offsets\n";
    RouterProcess router(work_dir(), config_for(at_least_once, ""));
    auto eos_router = std::make_unique<RouterProcess>(work_dir(), config_for(exactly_once, eos));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_REQUIRE(eos_router->wait_streaming());

    server.stop();
    const std::string snapshot = server.data_dir() + ".snapshot";
    copy_data_directory(server.data_dir(), snapshot);
    server.start();
    for (const auto& db : {at_least_once, exactly_once}) {
        Sql sql(server.conninfo(db));
        sql.exec(outbox_rows_sql(0, 20, 3));
        sql.exec("INSERT INTO orders SELECT g, 'c', g FROM generate_series(1, 20000) g");
        sql.exec(outbox_rows_sql(20, 1, 3));
        const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()"));
        BOOST_REQUIRE(wait_until([&] { return slot_position(server, db) >= written; }, 120s));
    }
    BOOST_REQUIRE(eos_router->stop(SIGTERM) == 0);
    eos_router.reset();

    server.stop();
    copy_data_directory(snapshot, server.data_dir());
    server.start();
    BOOST_TEST(router.wait(120s) == 1);
    BOOST_TEST_MESSAGE("at-least-once, restored server: " << last_line(router.output()));
    BOOST_TEST(contains(last_line(router.output()), "this router has handled events up to"));
    BOOST_TEST(contains(last_line(router.output()), "the server's WAL ends at"));

    RouterProcess restarted(work_dir(), config_for(exactly_once, eos));
    BOOST_TEST(restarted.wait(120s) == 1);
    BOOST_TEST_MESSAGE("exactly-once, restored server: " << last_line(restarted.output()));
    BOOST_TEST(contains(last_line(restarted.output()), "the offsets topic \"" + exactly_once + ".offsets\" says"));
    BOOST_TEST(contains(last_line(restarted.output()), "is not in this server's WAL history"));
    // Nothing moved the slot past the restored server's WAL.
    BOOST_TEST(slot_position(server, exactly_once) <=
               lsn_value(Sql(server.conninfo(exactly_once)).scalar("SELECT pg_current_wal_lsn()")));
}
