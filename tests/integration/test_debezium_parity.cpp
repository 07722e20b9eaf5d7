#define BOOST_TEST_MODULE debezium_parity
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <memory>
#include <set>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// One router streams a database with an outbox table per option set (table.overrides), plus
// logical decoding messages; every row is written once, and each test case reads back the
// topics of its option. Invalid rows, which stop the router, run in routers of their own.

namespace {

void wait_for_streaming(RouterProcess& router) {
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
}

std::vector<ConsumedRecord> records(const std::string& topic, std::size_t count) {
    auto found = read_topic(kafka_servers(), topic, count, 30s);
    BOOST_TEST_REQUIRE(found.size() == count, "topic " << topic);
    return found;
}

ConsumedRecord record_with_key(const std::vector<ConsumedRecord>& records, const std::string& key) {
    for (const auto& r : records)
        if (r.key == key) return r;
    BOOST_FAIL("no record with key " << key);
    return {};
}

// Kafka's Utils.murmur2 (Java client), transcribed: the partition Debezium's producer picks for
// a key is toPositive(murmur2(key bytes)) % partitions.
std::int32_t java_murmur2(const std::string& data) {
    constexpr std::uint32_t m = 0x5bd1e995;
    const auto length = static_cast<std::uint32_t>(data.size());
    std::uint32_t h = 0x9747b28c ^ length;
    const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])); };
    for (std::size_t i = 0; i + 4 <= data.size(); i += 4) {
        std::uint32_t k = byte(i) | byte(i + 1) << 8 | byte(i + 2) << 16 | byte(i + 3) << 24;
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    const std::size_t tail = data.size() & ~std::size_t{3};
    switch (data.size() % 4) {
        case 3: h ^= byte(tail + 2) << 16; [[fallthrough]];
        case 2: h ^= byte(tail + 1) << 8; [[fallthrough]];
        case 1: h ^= byte(tail); h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return static_cast<std::int32_t>(h);
}

std::int64_t epoch_ms(const Sql& sql, const std::string& expression) {
    return std::stoll(sql.scalar("SELECT (extract(epoch from " + expression + ") * 1000)::bigint"));
}

// Every table has Debezium's four columns (the start-up check reads them from the shared
// settings); the options under test use the others.
constexpr const char* kSchema = R"sql(
CREATE SCHEMA custom;
CREATE TABLE custom.outbox (id uuid, aggregatetype text, aggregateid text, payload jsonb,
                            event_id bigint, kind text, order_key integer, body text);
CREATE SCHEMA place;
CREATE TABLE place.outbox (id uuid, aggregatetype text, aggregateid text, payload jsonb, type text, flag boolean,
                           blob bytea, amount numeric, qty integer, shard integer, note text);
CREATE SCHEMA tomb;
CREATE TABLE tomb.outbox (id text, aggregatetype text, aggregateid text, payload text);
CREATE SCHEMA expand;
CREATE TABLE expand.headers (id text, aggregatetype text, aggregateid text, payload text);
CREATE TABLE expand.envelope (id text, aggregatetype text, aggregateid text, payload jsonb, type text);
CREATE SCHEMA ts;
CREATE TABLE ts.plain (id text, aggregatetype text, aggregateid text, payload text, at timestamp);
CREATE TABLE ts.zoned (id text, aggregatetype text, aggregateid text, payload text, at timestamptz);
CREATE TABLE ts.epoch (id text, aggregatetype text, aggregateid text, payload text, at bigint);
CREATE SCHEMA keys;
CREATE TABLE keys.uuid (id uuid, aggregatetype text, aggregateid uuid, payload jsonb);
CREATE TABLE keys.bytes (id bytea, aggregatetype text, aggregateid bytea, payload bytea);
CREATE SCHEMA upd;
CREATE TABLE upd.outbox (id text PRIMARY KEY, aggregatetype text, aggregateid text, payload text);
)sql";

constexpr const char* kTables =
    "  table.include.list: public.outbox, custom.outbox, place.outbox, tomb.outbox, expand.headers, "
    "expand.envelope, ts.plain, ts.zoned, ts.epoch, keys.uuid, keys.bytes, upd.outbox\n";

constexpr const char* kOutbox = R"yaml(outbox:
  table.field.event.type: type
  message.prefix.include.list: "parity, parity2"
  table.overrides:
    custom.outbox:
      table.field.event.id: event_id
      table.field.event.key: order_key
      table.field.event.payload: body
      route.by.field: kind
      route.topic.regex: "(?<domain>[a-z]+)_(?<kind>[A-Za-z]+)"
      route.topic.replacement: "parity.custom.${kind}.$1"
    place.outbox:
      route.topic.replacement: "parity.place.${routedByValue}"
      table.fields.additional.placement: "type:header:eventType, flag:HEADER, blob:header:blobHeader, note:header,
        type:envelope:eventType, amount:Envelope, qty:envelope:quantity, note:envelope, shard:partition,
        tenant:header, tenant:envelope"
      table.field.additional.missing: ignore
    tomb.outbox:
      route.topic.replacement: "parity.tomb.${routedByValue}"
      route.tombstone.on.empty.payload: true
    expand.headers:
      route.topic.replacement: "parity.expand.headers"
      table.expand.json.payload: true
    expand.envelope:
      route.topic.replacement: "parity.expand.envelope"
      table.expand.json.payload: true
      table.json.payload.null.behavior: optional_bytes
      table.json.payload.empty.array.behavior: optional_string
      table.fields.additional.placement: type:envelope:eventType
    ts.plain:
      route.topic.replacement: "parity.ts.plain"
      table.field.event.timestamp: at
    ts.zoned:
      route.topic.replacement: "parity.ts.zoned"
      table.field.event.timestamp: at
    ts.epoch:
      route.topic.replacement: "parity.ts.epoch"
      table.field.event.timestamp: at
    keys.uuid:
      route.topic.replacement: "parity.keys.uuid"
    keys.bytes:
      route.topic.replacement: "parity.keys.bytes"
    upd.outbox:
      route.topic.replacement: "parity.upd"
      table.op.invalid.behavior: error
)yaml";

// The router of the shared run, with every row written; created by the first test that needs it.
struct ParityRun {
    std::string db = create_outbox_database("parity");
    Sql sql{postgres().conninfo(db)};
    std::unique_ptr<RouterProcess> router;
    std::int64_t default_txn_start_ms = 0;
    std::int64_t default_committed_by_ms = 0;
    std::string default_payload_text;

    ParityRun() {
        sql.exec(kSchema);
        router = std::make_unique<RouterProcess>(work_dir(), router_config(db, kTables, "", kOutbox));
        wait_for_streaming(*router);

        sql.exec("BEGIN");
        default_txn_start_ms = epoch_ms(sql, "now()");
        sql.exec(
            "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES "
            "('4d47e190-0402-4048-bc2c-89dd54343cdc', 'ParityOrder', 'o-1', 'Created', "
            "'{\"id\": 1, \"customerId\": 123, \"items\": [\"a\"]}')");
        sql.exec("COMMIT");
        default_committed_by_ms = epoch_ms(sql, "clock_timestamp()");
        default_payload_text = sql.scalar("SELECT payload::text FROM outbox WHERE aggregateid = 'o-1'");
        sql.exec("UPDATE outbox SET type = 'Changed' WHERE aggregateid = 'o-1'");
        sql.exec(
            "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) "
            "SELECT gen_random_uuid(), 'ParityKeyed', 'key-' || n, 'Keyed', '{}' FROM generate_series(1, 64) n");

        sql.exec(
            "INSERT INTO custom.outbox (event_id, kind, order_key, body) VALUES "
            "(9000000000, 'shop_Order', 7, 'custom body'), (9000000001, 'ParityNoMatch', 8, 'raw topic')");
        sql.exec(
            "INSERT INTO place.outbox (id, aggregatetype, aggregateid, payload, type, flag, blob, amount, qty, shard, "
            "note) "
            "VALUES (gen_random_uuid(), 'Placed', 'p-1', '{\"id\": 1}', 'Placed', true, '\\x666f6f', 12.50, 3, 2, "
            "NULL), "
            "(gen_random_uuid(), 'Placed', 'p-2', '{\"id\": 2}', 'Placed', false, NULL, -1, NULL, NULL, 'n')");
        sql.exec(
            "INSERT INTO tomb.outbox VALUES ('t1', 'Tomb', 'k1', NULL), ('t2', 'Tomb', 'k2', ''), "
            "('t3', 'Tomb', 'k3', E'  \\t '), ('t4', 'Tomb', 'k4', ' x ')");
        sql.exec(
            "INSERT INTO expand.headers VALUES "
            "('e1', 'E', 'k1', '{\"a\": {\"b\": null, \"c\": [1, null, {\"d\": []}]}, \"e\": [], "
            "\"f\": [{\"x\": 1}, {\"y\": 2}]}'), "
            "('e2', 'E', 'k2', 'not json {'), ('e3', 'E', 'k3', '[1, \"two\", null]')");
        sql.exec(
            "INSERT INTO expand.envelope VALUES ('e4', 'E', 'k4', "
            "'{\"nested\": {\"k\": \"v\", \"z\": null}, \"arr\": [], \"n\": null}', 'Expanded')");
        sql.exec("INSERT INTO ts.plain VALUES ('a', 'T', 'k', 'p', '2024-01-02 03:04:05.123456')");
        sql.exec(
            "INSERT INTO ts.zoned VALUES ('b', 'T', 'k1', 'p', '2024-01-02 08:34:05.5+05:30'), "
            "('c', 'T', 'k2', 'p', NULL)");
        sql.exec("INSERT INTO ts.epoch VALUES ('d', 'T', 'k', 'p', 1704164645999)");
        sql.exec(
            "INSERT INTO keys.uuid VALUES ('0b5ffd2e-55f5-4a4b-a6f0-1d3c5e0e7b59', 'K', "
            "'c8f2a5f0-8d9e-4b7e-9a41-35f1e4c3b2a1', '{}')");
        sql.exec("INSERT INTO keys.bytes VALUES ('\\x00ff', 'K', '\\x0102', '\\x68690a')");
        sql.exec("INSERT INTO upd.outbox VALUES ('u1', 'U', 'k', 'p')");
        sql.exec("UPDATE upd.outbox SET payload = 'q' WHERE id = 'u1'");

        const auto message = [&](const std::string& prefix, const std::string& json) {
            return "SELECT pg_logical_emit_message(true, '" + prefix + "', '" + json + "')";
        };
        sql.exec(message("parity", R"({"id": "m-1", "aggregatetype": "ParityMessage", "aggregateid": 42, )"
                                   R"("payload": {"hello": "world"}, "type": "Hi"})"));
        sql.exec(message("parity2",
                         R"({"id": "m-2", "aggregatetype": "ParityMessage", "aggregateid": 43, "payload": "text"})"));
        sql.exec(message("unwatched",
                         R"({"id": "m-3", "aggregatetype": "ParityUnwatched", "aggregateid": 1, "payload": "x"})"));
        sql.exec(
            "BEGIN; " +
            message("parity", R"({"id": "m-4", "aggregatetype": "ParityMessage", "aggregateid": 44, "payload": "x"})") +
            "; ROLLBACK");
        // Rows and messages interleaved in one transaction, one key: Kafka keeps their order.
        sql.exec(
            "BEGIN; "
            "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES "
            "(gen_random_uuid(), 'ParityMixed', 'mix', 't', '{\"seq\": 1}'); " +
            message("parity",
                    R"({"id": "x2", "aggregatetype": "ParityMixed", "aggregateid": "mix", "payload": {"seq": 2}})") +
            "; "
            "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES "
            "(gen_random_uuid(), 'ParityMixed', 'mix', 't', '{\"seq\": 3}'); " +
            message("parity",
                    R"({"id": "x4", "aggregatetype": "ParityMixed", "aggregateid": "mix", "payload": {"seq": 4}})") +
            "; COMMIT");
    }
};

ParityRun& parity() {
    static ParityRun run;
    return run;
}

}  // namespace

BOOST_AUTO_TEST_CASE(defaults_give_debeziums_record) {
    auto& run = parity();
    const auto r = records("outbox.event.ParityOrder", 1).front();
    BOOST_TEST(r.key.value() == "o-1");
    BOOST_TEST(r.value.value() == run.default_payload_text);  // jsonb text byte for byte
    BOOST_TEST(r.value.value() == R"({"id": 1, "items": ["a"], "customerId": 123})");
    BOOST_TEST(r.headers.size() == 1u);
    BOOST_TEST(r.header("id").value() == "4d47e190-0402-4048-bc2c-89dd54343cdc");
    BOOST_TEST(r.timestamp_ms >= run.default_txn_start_ms);  // the commit time
    BOOST_TEST(r.timestamp_ms <= run.default_committed_by_ms);
}

BOOST_AUTO_TEST_CASE(keys_land_on_the_partitions_the_java_client_picks) {
    // The reference itself, against Kafka's UtilsTest.testMurmur2 vectors.
    BOOST_TEST(java_murmur2("21") == -973932308);
    BOOST_TEST(java_murmur2("foobar") == -790332482);
    BOOST_TEST(java_murmur2("a-little-bit-long-string") == -985981536);
    BOOST_TEST(java_murmur2("a-little-bit-longer-string") == -1486304829);
    BOOST_TEST(java_murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8") == -58897971);
    BOOST_TEST(java_murmur2("abc") == 479470107);

    parity();
    const auto keyed = records("outbox.event.ParityKeyed", 64);
    const auto partitions = static_cast<std::int32_t>(
        partition_end_offsets(kafka_servers(), "outbox.event.ParityKeyed").size());
    BOOST_TEST_REQUIRE(partitions > 1);
    std::set<std::int32_t> used;
    for (const auto& r : keyed) {
        const std::int32_t expected = (java_murmur2(r.key.value()) & 0x7fffffff) % partitions;
        BOOST_TEST(r.partition == expected, "key " << r.key.value());
        used.insert(r.partition);
    }
    BOOST_TEST(used.size() == static_cast<std::size_t>(partitions));
}

BOOST_AUTO_TEST_CASE(pasted_debezium_keys_without_effect_start_with_a_warning) {
    BOOST_TEST(contains(parity().router->output(),
                        "outbox.table.field.event.type is accepted for compatibility with "
                        "Debezium but has no effect"));
}

BOOST_AUTO_TEST_CASE(custom_columns_integer_key_and_bigint_id_with_regex_groups) {
    parity();
    const auto routed = records("parity.custom.Order.shop", 1).front();
    BOOST_TEST(routed.key.value() == "7");
    BOOST_TEST(routed.header("id").value() == "9000000000");
    BOOST_TEST(routed.value.value() == "custom body");
    const auto raw = records("ParityNoMatch", 1).front();  // no match: the value itself is the topic
    BOOST_TEST(raw.key.value() == "8");
    BOOST_TEST(raw.value.value() == "raw topic");
}

BOOST_AUTO_TEST_CASE(header_envelope_and_partition_placements_with_aliases) {
    parity();
    const auto placed = records("parity.place.Placed", 2);
    const auto first = record_with_key(placed, "p-1");
    BOOST_TEST(first.partition == 2);
    BOOST_REQUIRE(first.headers.size() == 5u);
    BOOST_TEST(first.headers[0].first == "id");
    BOOST_TEST(first.headers[1].first == "eventType");
    BOOST_TEST(first.headers[1].second.value() == "Placed");
    BOOST_TEST(first.headers[2].first == "flag");
    BOOST_TEST(first.headers[2].second.value() == "true");
    BOOST_TEST(first.headers[3].first == "blobHeader");
    BOOST_TEST(first.headers[3].second.value() == "Zm9v");
    BOOST_TEST(first.headers[4].first == "note");
    BOOST_TEST(!first.headers[4].second.has_value());
    BOOST_TEST(first.value.value() ==
               R"({"payload":"{\"id\": 1}","eventType":"Placed","amount":{"scale":1,"value":"fQ=="},"quantity":3,)"
               R"("note":null})");

    const auto second = record_with_key(placed, "p-2");
    BOOST_TEST(second.header("flag").value() == "false");
    BOOST_TEST(!second.header("blobHeader").has_value());
    BOOST_TEST(second.value.value() ==
               R"({"payload":"{\"id\": 2}","eventType":"Placed","amount":{"scale":0,"value":"/w=="},"quantity":null,)"
               R"("note":"n"})");
}

BOOST_AUTO_TEST_CASE(tombstones_for_null_and_blank_payloads) {
    parity();
    const auto tombs = records("parity.tomb.Tomb", 4);
    for (const std::string key : {"k1", "k2", "k3"}) {
        const auto r = record_with_key(tombs, key);
        BOOST_TEST(!r.value.has_value(), key);
        BOOST_TEST(r.header("id").has_value(), key);
    }
    BOOST_TEST(record_with_key(tombs, "k4").value.value() == " x ");
}

BOOST_AUTO_TEST_CASE(expanded_json_payloads) {
    auto& run = parity();
    const auto headers_only = records("parity.expand.headers", 3);
    BOOST_TEST(record_with_key(headers_only, "k1").value.value() ==
               R"({"a":{"c":[1,null,{}]},"f":[{"x":1,"y":null},{"x":null,"y":2}]})");
    BOOST_TEST(record_with_key(headers_only, "k2").value.value() == "not json {");
    BOOST_TEST(record_with_key(headers_only, "k3").value.value() == R"([1,"two",null])");
    BOOST_TEST(contains(run.router->output(), "outbox table expand.headers, transaction committing at LSN"));
    BOOST_TEST(contains(run.router->output(), "column \"payload\" is kept as it was because it does not start with { or ["));

    const auto envelope = records("parity.expand.envelope", 1).front();
    BOOST_TEST(envelope.value.value() ==
               R"({"payload":{"n":null,"arr":[],"nested":{"k":"v","z":null}},"eventType":"Expanded"})");
}

BOOST_AUTO_TEST_CASE(timestamp_column_of_each_accepted_type) {
    parity();
    BOOST_TEST(records("parity.ts.plain", 1).front().timestamp_ms == 1'704'164'645'123);
    BOOST_TEST(records("parity.ts.epoch", 1).front().timestamp_ms == 1'704'164'645'999);
    const auto zoned = records("parity.ts.zoned", 2);
    BOOST_TEST(record_with_key(zoned, "k1").timestamp_ms == 1'704'164'645'500);
    BOOST_TEST(record_with_key(zoned, "k2").timestamp_ms > 1'704'164'645'500);  // NULL: the commit time
}

BOOST_AUTO_TEST_CASE(uuid_and_bytea_keys_and_ids) {
    parity();
    const auto uuid = records("parity.keys.uuid", 1).front();
    BOOST_TEST(uuid.key.value() == "c8f2a5f0-8d9e-4b7e-9a41-35f1e4c3b2a1");
    BOOST_TEST(uuid.header("id").value() == "0b5ffd2e-55f5-4a4b-a6f0-1d3c5e0e7b59");
    const auto bytes = records("parity.keys.bytes", 1).front();
    BOOST_TEST(bytes.key.value() == std::string("\x01\x02", 2));
    BOOST_TEST(bytes.header("id").value() == "AP8=");
    BOOST_TEST(bytes.value.value() == "hi\n");
}

BOOST_AUTO_TEST_CASE(updates_are_skipped_with_a_warning_or_an_error) {
    auto& run = parity();
    BOOST_TEST(records("parity.upd", 1).front().value.value() == "p");
    BOOST_TEST(wait_until(
        [&] { return contains(run.router->output(), "ERROR skipping UPDATE on outbox table upd.outbox"); }, 10s));
    BOOST_TEST(contains(run.router->output(), "WARN  skipping UPDATE on outbox table public.outbox"));
}

BOOST_AUTO_TEST_CASE(transactional_messages_are_routed_like_rows) {
    parity();
    const auto messages = records("outbox.event.ParityMessage", 2);
    const auto first = record_with_key(messages, "42");
    BOOST_TEST(first.header("id").value() == "m-1");
    BOOST_TEST(first.value.value() == R"({"hello":"world"})");
    BOOST_TEST(first.headers.size() == 1u);
    BOOST_TEST(record_with_key(messages, "43").value.value() == "text");  // the second watched prefix
    const auto topics = list_topics(kafka_servers());
    BOOST_TEST(std::count(topics.begin(), topics.end(), "outbox.event.ParityUnwatched") == 0);
}

BOOST_AUTO_TEST_CASE(messages_and_rows_of_one_transaction_keep_their_order) {
    parity();
    const auto mixed = records("outbox.event.ParityMixed", 4);
    for (std::size_t i = 0; i < mixed.size(); ++i)
        BOOST_TEST(mixed[i].value.value() ==
                   "{\"seq\":" + std::string(i % 2 == 0 ? " " : "") + std::to_string(i + 1) + "}");
    BOOST_TEST(mixed[0].partition == mixed[3].partition);
}

BOOST_AUTO_TEST_CASE(the_shared_run_stops_cleanly_and_confirms_everything) {
    auto& run = parity();
    const auto last_write = lsn_value(run.sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(run.db, run.db) >= last_write; }, 30s));
    BOOST_TEST(run.router->stop(SIGTERM) == 0);
}

// Each of these stops its router (exit 1) naming the source, the column or field, the commit
// LSN and the cause, and confirms nothing of the offending transaction. They run side by side.
BOOST_AUTO_TEST_CASE(invalid_rows_and_fatal_updates_stop_the_router) {
    struct Case {
        Case(std::string name, std::string outbox, std::string write, std::vector<std::string> expected)
            : name(std::move(name)),
              outbox(std::move(outbox)),
              write(std::move(write)),
              expected(std::move(expected)),
              db(create_outbox_database(this->name)) {}
        std::string name;
        std::string outbox;
        std::string write;
        std::vector<std::string> expected;
        std::string db;
        std::unique_ptr<RouterProcess> router;
        std::uint64_t after = 0;
    };
    std::vector<Case> cases;
    cases.push_back(
        Case("fatal_update", "outbox:\n  table.op.invalid.behavior: fatal\n",
             "BEGIN; INSERT INTO outbox VALUES ('00000000-0000-0000-0000-000000000001', 'Fatal', 'k', 't', '{}'); "
             "UPDATE outbox SET type = 'u'; COMMIT",
             {"UPDATE on outbox table public.outbox in the transaction committing at LSN",
              "table.op.invalid.behavior is fatal"}));
    cases.push_back(Case("missing_field", "outbox:\n  table.fields.additional.placement: tenant:envelope\n",
                         "INSERT INTO outbox VALUES (gen_random_uuid(), 'Missing', 'k', 't', '{}')",
                         {"outbox table public.outbox, column \"tenant\" (outbox.table.fields.additional.placement), "
                          "transaction committing at LSN",
                          "there is no such column and table.field.additional.missing is error"}));
    cases.push_back(Case("illegal_topic", "",
                         "INSERT INTO outbox VALUES (gen_random_uuid(), 'has space', 'k', 't', '{}')",
                         {"outbox table public.outbox, column \"aggregatetype\" (outbox.route.by.field)",
                          "topic \"outbox.event.has space\" is not a legal Kafka topic name"}));
    cases.push_back(Case("nontx_message", "outbox:\n  message.prefix.include.list: outbox\n",
                         "SELECT pg_logical_emit_message(false, 'outbox', "
                         "'{\"id\": 1, \"aggregatetype\": \"A\", \"aggregateid\": \"k\", \"payload\": \"p\"}')",
                         {"logical decoding message with prefix \"outbox\", at LSN", "it is not transactional"}));
    cases.push_back(Case("malformed_message", "outbox:\n  message.prefix.include.list: outbox\n",
                         "SELECT pg_logical_emit_message(true, 'outbox', '{\"id\": 1, \"aggregatetype\": ')",
                         {"logical decoding message with prefix \"outbox\", transaction committing at LSN",
                          "the content is not valid JSON"}));
    cases.push_back(Case(
        "message_field", "outbox:\n  message.prefix.include.list: outbox\n",
        "SELECT pg_logical_emit_message(true, 'outbox', '{\"id\": 1, \"aggregateid\": \"k\", \"payload\": \"p\"}')",
        {"field \"aggregatetype\" (outbox.route.by.field) is missing"}));

    cases.push_back(Case("partition_range", "outbox:\n  table.fields.additional.placement: shard:partition\n",
                         "ALTER TABLE outbox ADD COLUMN shard int; "
                         "INSERT INTO outbox VALUES (gen_random_uuid(), 'Range', 'k', 't', '{}', now(), 99)",
                         {"topic \"outbox.event.Range\"", "Unknown partition"}));
    for (auto& c : cases) c.router = std::make_unique<RouterProcess>(work_dir(), router_config(c.db, "", "", c.outbox));
    for (auto& c : cases) {
        wait_for_streaming(*c.router);
        Sql sql(postgres().conninfo(c.db));
        sql.exec(c.write);
        c.after = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    }
    for (auto& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            BOOST_TEST(c.router->wait(60s) == 1);
            const auto line = last_line(c.router->output());
            BOOST_TEST_MESSAGE(c.name << ": " << line);
            for (const auto& expected : c.expected) BOOST_TEST(contains(line, expected), line);
            BOOST_TEST(confirmed_flush_lsn(c.db, c.db) < c.after);
        }
    }
}
