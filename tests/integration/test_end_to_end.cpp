#define BOOST_TEST_MODULE end_to_end
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "delivery_tally.hpp"
#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

// Per key, the sequence numbers must rise in the order Kafka holds them.
void check_per_key_order(const std::vector<ConsumedRecord>& records) {
    std::map<std::string, int> last;
    for (const auto& r : records) {
        const int seq = seq_of(r);
        auto [it, fresh] = last.emplace(r.key.value(), seq);
        if (!fresh) {
            BOOST_TEST(seq > it->second, "key " << r.key.value() << ": " << seq << " after " << it->second);
            it->second = seq;
        }
    }
}

std::string literal(const Sql& sql, const std::string& text) {
    char* quoted = PQescapeLiteral(sql.raw(), text.data(), text.size());
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(outbox_rows_of_every_shape_become_debezium_records) {
    const auto db = create_outbox_database("e2e");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db));
    BOOST_REQUIRE(router.wait_streaming());

    int next = 0;
    // Many transactions with multi-row INSERTs (ids 0..1999).
    for (int t = 0; t < 40; ++t, next += 50) sql.exec("BEGIN; " + outbox_rows_sql(next, 50, 7) + "; COMMIT;");
    // COPY (ids 2000..2499).
    sql.exec("CREATE TEMP TABLE staging AS SELECT md5(i::text)::uuid AS id, 'Order'::text AS aggregatetype, "
             "'key-' || (i % 7) AS aggregateid, 'Created'::text AS type, ('{\"seq\": ' || i || '}')::jsonb AS payload "
             "FROM generate_series(2000, 2499) i");
    {
        const auto staged = sql.rows("SELECT id, aggregatetype, aggregateid, type, payload FROM staging ORDER BY (payload->>'seq')::int");
        PGresult* start = PQexec(sql.raw(), "COPY outbox (id, aggregatetype, aggregateid, type, payload) FROM STDIN");
        BOOST_REQUIRE(PQresultStatus(start) == PGRES_COPY_IN);
        PQclear(start);
        for (const auto& row : staged) {
            const std::string line = row[0] + "\t" + row[1] + "\t" + row[2] + "\t" + row[3] + "\t" + row[4] + "\n";
            BOOST_REQUIRE(PQputCopyData(sql.raw(), line.data(), static_cast<int>(line.size())) == 1);
        }
        BOOST_REQUIRE(PQputCopyEnd(sql.raw(), nullptr) == 1);
        PGresult* done = PQgetResult(sql.raw());
        BOOST_REQUIRE(PQresultStatus(done) == PGRES_COMMAND_OK);
        PQclear(done);
        PQclear(PQgetResult(sql.raw()));
    }
    next = 2500;
    // Insert and delete in one transaction (ids 2500..2599): published once, delete skipped.
    sql.exec("BEGIN; " + outbox_rows_sql(next, 100, 7) + "; DELETE FROM outbox WHERE (payload->>'seq')::int >= 2500; COMMIT;");
    next += 100;
    // Rolled back: never published.
    sql.exec("BEGIN; " + outbox_rows_sql(90000, 10, 7) + "; ROLLBACK;");
    // Writes to another table and an UPDATE of an outbox row: ignored.
    sql.exec("INSERT INTO orders SELECT g, 'c', g FROM generate_series(1, 500) g");
    sql.exec("UPDATE outbox SET type = 'Changed' WHERE (payload->>'seq')::int = 3");
    // A second aggregate type goes to its own topic.
    sql.exec(outbox_rows_sql(5000, 5, 2, "Customer"));
    const int expected_orders = next;

    const auto orders = read_topic(kafka_servers(), "outbox.event.Order", expected_orders);
    BOOST_TEST(orders.size() == static_cast<std::size_t>(expected_orders));
    std::set<int> seen;
    for (const auto& r : orders) seen.insert(seq_of(r));
    BOOST_TEST(seen.size() == static_cast<std::size_t>(expected_orders));
    BOOST_TEST(*seen.rbegin() == expected_orders - 1);
    check_per_key_order(orders);

    // Exact bytes: the server's jsonb text, the uuid text in the id header, the key text.
    const auto expected = sql.rows("SELECT id::text, payload::text, aggregateid, "
                                   "(extract(epoch from now()) * 1000)::bigint FROM outbox WHERE (payload->>'seq')::int = 42");
    bool found = false;
    for (const auto& r : orders) {
        if (seq_of(r) != 42) continue;
        found = true;
        BOOST_TEST(*r.value == expected[0][1]);
        BOOST_TEST(r.header("id").value() == expected[0][0]);
        BOOST_TEST(r.key.value() == expected[0][2]);
        BOOST_TEST(r.headers.size() == 1u);
        BOOST_TEST(r.timestamp_ms > 1'600'000'000'000);  // the commit time, in ms
        BOOST_TEST(r.timestamp_ms <= std::stoll(expected[0][3]));
    }
    BOOST_TEST(found);

    const auto customers = read_topic(kafka_servers(), "outbox.event.Customer", 5);
    BOOST_TEST(customers.size() == 5u);

    BOOST_TEST(router.output().find("skipping UPDATE on outbox table public.outbox") != std::string::npos);
    // Everything was delivered, so the slot moves past the last outbox commit.
    const auto last_write = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= last_write; }, 30s));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(slot_is_not_confirmed_past_an_undelivered_event_and_catches_up_after) {
    const auto db = create_outbox_database("gate");
    Sql sql(postgres().conninfo(db));
    const std::string topic = "gate.events";
    RouterProcess router(work_dir(), router_config(db, "", "", "outbox:\n  route.topic.replacement: gate.events\n"));
    BOOST_REQUIRE(router.wait_streaming());

    sql.exec(outbox_rows_sql(0, 1, 1));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 1).size() == 1u);
    const auto before = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_REQUIRE(wait_until([&] { return confirmed_flush_lsn(db, db) >= before; }, 30s));

    // The broker stopped (SIGSTOP): it keeps its connections open and acknowledges nothing.
    real_kafka().node(1).pause();
    sql.exec(outbox_rows_sql(1, 1, 1));
    const auto held_commit_end = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    // Writes elsewhere keep the server sending keepalives past the held transaction.
    for (int i = 0; i < 20; ++i) {
        sql.exec("INSERT INTO orders VALUES (" + std::to_string(100 + i) + ", 'x', 1)");
        std::this_thread::sleep_for(150ms);
    }
    BOOST_TEST(confirmed_flush_lsn(db, db) < held_commit_end);
    BOOST_TEST(confirmed_flush_lsn(db, db) <= before + 1024);  // not a byte of the held transaction
    BOOST_TEST(router.running());

    real_kafka().node(1).resume();
    BOOST_TEST(read_topic(kafka_servers(), topic, 2).size() == 2u);
    const auto after = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= after; }, 30s));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// PostgreSQL sends a non-transactional message at where its record ends (decode.c queues it at
// the record's end), and the next record may be a transaction's commit: its BEGIN then carries the
// message's position. Such a transaction was once taken for handed over already, and lost.
BOOST_AUTO_TEST_CASE(a_commit_right_after_a_non_transactional_message_is_published) {
    const auto db = create_outbox_database("msgend");
    const std::string topic = "msgend.events";
    RouterProcess router(work_dir(), router_config(db, "", "errors.tolerance: all\n",
                                                   "outbox:\n  route.topic.replacement: " + topic +
                                                       "\n  message.prefix.include.list: outbox\n"));
    BOOST_REQUIRE(router.wait_streaming());
    Sql writer(postgres().conninfo(db));
    Sql emitter(postgres().conninfo(db));
    constexpr int kRows = 10;
    int adjacent = 0;
    for (int i = 0; i < kRows; ++i) {
        writer.exec("BEGIN");
        writer.exec(outbox_rows_sql(i, 1, 1));
        const auto message_end = lsn_value(emitter.scalar(
            "SELECT pg_logical_emit_message(false, 'outbox', "
            "'{\"id\": 1, \"aggregatetype\": \"A\", \"aggregateid\": \"k\", \"payload\": \"p\"}')"));
        // Nothing written since: the commit record starts where the message ends.
        if (lsn_value(writer.scalar("SELECT pg_current_wal_insert_lsn()")) == message_end) ++adjacent;
        writer.exec("COMMIT");
    }
    BOOST_TEST(adjacent > 0);
    BOOST_TEST(sequences_in(topic, kRows, 60s).size() == static_cast<std::size_t>(kRows));
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, kRows), kRows);
    BOOST_TEST(tally.duplicates == 0u, tally);  // no crash, no producer replaced: each event once
    BOOST_TEST(contains(router.output(), "it is not transactional"));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(stop_and_restart_mid_stream_loses_nothing) {
    const auto db = create_outbox_database("restart");
    const std::string topic = "restart.events";
    const auto config = router_config(db, "", "", "outbox:\n  route.topic.replacement: restart.events\n");
    constexpr int kTransactions = 300, kRowsPerTransaction = 50;

    {
        // The slot must exist before the first write: it only sees WAL written after it.
        RouterProcess creator(work_dir(), config);
        BOOST_REQUIRE(creator.wait_streaming());
        BOOST_TEST(creator.stop(SIGTERM) == 0);
    }
    std::thread writer([&] {
        Sql sql(postgres().conninfo(db));
        for (int t = 0; t < kTransactions; ++t)
            sql.exec("BEGIN; " + outbox_rows_sql(t * kRowsPerTransaction, kRowsPerTransaction, 11) + "; COMMIT;");
    });
    int restarts = 0;
    for (int round = 0; round < 3; ++round) {
        RouterProcess router(work_dir(), config);
        std::this_thread::sleep_for(std::chrono::milliseconds(700 + 300 * round));
        BOOST_TEST(router.stop(SIGTERM) == 0);
        ++restarts;
    }
    writer.join();
    RouterProcess final_router(work_dir(), config);
    const std::size_t total = kTransactions * kRowsPerTransaction;
    const auto seen = sequences_in(topic, total);
    const auto records = read_topic(kafka_servers(), topic, total, 10s);
    BOOST_TEST(seen.size() == total);  // every committed row, at least once
    if (seen.size() != total) BOOST_TEST_MESSAGE(final_router.output());
    BOOST_TEST_MESSAGE("restarts: " << restarts << ", records: " << records.size() << ", duplicates: "
                                    << records.size() - seen.size());
    BOOST_TEST(final_router.stop(SIGTERM) == 0);
}

// The walsender prints timestamptz in its session's time zone; the router sets UTC, so a role
// or database in another zone does not change the record's bytes (Debezium's ZonedTimestamp).
BOOST_AUTO_TEST_CASE(timestamps_are_written_in_utc_whatever_the_server_zone) {
    const auto db = create_outbox_database("utc");
    Sql sql(postgres().conninfo(db));
    sql.exec("ALTER DATABASE " + db + " SET TimeZone = 'Asia/Tokyo'");
    RouterProcess router(work_dir(), router_config(db, "", "",
                                                   "outbox:\n  route.topic.replacement: utc.events\n"
                                                   "  table.fields.additional.placement: created_at:header:createdAt\n"));
    BOOST_REQUIRE(router.wait_streaming());
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at) VALUES "
             "(gen_random_uuid(), 'Order', 'k', 'Created', '{\"seq\": 1}', '2026-11-23 10:31:09.5+09')");
    const auto records = read_topic(kafka_servers(), "utc.events", 1);
    BOOST_REQUIRE(records.size() == 1u);
    BOOST_TEST(records[0].header("createdAt").value() == "2026-11-23T01:31:09.500000Z");
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// The suite's servers and conninfos use TLS, where OpenSSL decrypts what the router reads of the
// socket. On a plain connection it reads the socket alone: the same rows arrive, and a stop ends
// the stream and confirms everything delivered; the walsender's own view says which path each took.
BOOST_AUTO_TEST_CASE(a_router_streaming_over_plain_tcp_or_tls_delivers_and_confirms_everything) {
    for (const bool tls : {false, true}) {
        BOOST_TEST_CONTEXT((tls ? "TLS" : "plain TCP")) {
            const auto db = create_outbox_database(tls ? "tls" : "plain");
            Sql sql(postgres().conninfo(db));
            const std::string topic = std::string(tls ? "tls" : "plain") + ".events";
            auto config = router_config(db, "", "", "outbox:\n  route.topic.replacement: " + topic + "\n");
            const auto conninfo = postgres().conninfo(db);
            if (!tls) config.replace(config.find(conninfo), conninfo.size(), postgres().plain_conninfo(db));
            RouterProcess router(work_dir(), config);
            BOOST_REQUIRE(router.wait_streaming());
            BOOST_TEST(sql.scalar("SELECT ssl FROM pg_stat_ssl JOIN pg_replication_slots ON pid = active_pid "
                                  "WHERE slot_name = '" + db + "'") == (tls ? "t" : "f"));

            for (int t = 0; t < 20; ++t) sql.exec(outbox_rows_sql(t * 50, 50, 7));
            const auto records = read_topic(kafka_servers(), topic, 1000);
            BOOST_TEST(records.size() == 1000u);
            check_per_key_order(records);
            const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()"));
            BOOST_TEST(router.stop(SIGTERM) == 0);
            BOOST_TEST(confirmed_flush_lsn(db, db) >= written);
        }
    }
}

// CloudEvents in binary mode (ce_* headers, the data as the value) through the real broker, each
// record read back by the CloudEvents Python SDK's Kafka binding (cloudevents 2.2.0:
// KafkaMessage, from_binary) with what the rows hold: id, source, type, subject (the key),
// the commit time, the data; with and without Debezium's data schemas.
// Debezium's CloudEventsConverter writes structured mode only, so there is nothing to compare with.
BOOST_AUTO_TEST_CASE(cloud_events_in_binary_mode_through_the_broker_are_read_by_the_sdk_kafka_binding) {
    BOOST_REQUIRE_MESSAGE(std::filesystem::exists(OUTBOX_PLATFORM_PYTHON),
                          "the platform tools' Python (built with Go present) holds the CloudEvents SDK");
    const std::vector<std::array<std::string, 4>> rows = {
        {"59a42efd-b015-44a9-9dde-cb36d9002425", "10711fa5", "UserCreated", R"({"someField1": "some value 1", "someField2": 7005})"},
        {"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "order 7 / ü", "Order\"Placed\\", R"({"name": "Zoë \"q\" 😀", "n": [1, 2], "d": 2.5, "o": {"b": true}})"},
        {"6b42efd0-b015-44a9-9dde-cb36d9002425", "k3", "Ünïcode.type", R"({})"}};
    nlohmann::json records = nlohmann::json::array();
    for (const bool data_schemas : {false, true}) {
        const auto db = create_outbox_database(data_schemas ? "cebins" : "cebin");
        const std::string topic = db + ".events";
        Sql sql(postgres().conninfo(db));
        RouterProcess router(work_dir(), router_config(db, "",
                                                       "topic.prefix: shop\n"
                                                       "value.converter: io.debezium.converters.CloudEventsConverter\n"
                                                       "value.converter.metadata.source: header,id:header,type:header\n"
                                                       "value.converter.extension.attributes.enable: false\n"
                                                       "value.converter.json.schemas.enable: " +
                                                           std::string(data_schemas ? "true" : "false") +
                                                           "\nvalue.converter.cloudevents.mode: binary\n",
                                                       "outbox:\n  route.topic.replacement: " + topic +
                                                           "\n  table.expand.json.payload: true\n"
                                                           "  table.fields.additional.placement: type:header:type\n"));
        BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
        const std::string now_utc = "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', "
                                    "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";
        const auto earliest = sql.scalar(now_utc);
        for (const auto& [id, key, type, payload] : rows)
            sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES (" + literal(sql, id) +
                     ", 'User', " + literal(sql, key) + ", " + literal(sql, type) + ", " + literal(sql, payload) + ")");
        const auto latest = sql.scalar(now_utc);
        const auto consumed = read_topic(kafka_servers(), topic, rows.size());
        BOOST_REQUIRE(consumed.size() == rows.size());
        for (const auto& record : consumed) {
            BOOST_TEST(record.header("ce_specversion").value_or("") == "1.0");
            nlohmann::json headers = nlohmann::json::array();
            for (const auto& [name, value] : record.headers) headers.push_back({name, value.value_or("")});
            const auto row = std::find_if(rows.begin(), rows.end(),
                                          [&](const auto& r) { return record.key == r[1]; });
            BOOST_REQUIRE(row != rows.end());
            records.push_back({{"mode", "binary"},
                               {"key", record.key.value()},
                               {"value", record.value.value_or("")},
                               {"headers", headers},
                               {"expect",
                                {{"id", (*row)[0]},
                                 {"source", "/debezium/postgresql/shop"},
                                 {"type", (*row)[2]},
                                 {"subject", (*row)[1]},
                                 {"time", {earliest, latest}},
                                 {"data", nlohmann::json::parse((*row)[3])},
                                 {"data_schema", data_schemas}}}});
        }
        BOOST_TEST(router.stop(SIGTERM) == 0);
    }
    const auto dir = make_temp_dir("cloud-events");
    write_file(dir + "/records.json", records.dump());
    const std::string command = std::string(OUTBOX_PLATFORM_PYTHON) + " " + OUTBOX_SOURCE_DIR +
                                "/tests/platform/read_cloud_events.py " + dir + "/records.json >" + dir + "/out 2>&1";
    const int status = std::system(command.c_str());
    const auto output = read_file(dir + "/out");
    std::filesystem::remove_all(dir);
    BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), output);
    BOOST_TEST(contains(output, "read 6 events, 0 differences"), output);
}
