#define BOOST_TEST_MODULE router_outbox
#include <boost/test/unit_test.hpp>

#include "outbox/config/config.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/util/errors.hpp"
#include "router_test_support.hpp"

using namespace outbox;
using namespace outbox::router;
using namespace outbox::router::test;

namespace {

config::Config config_with(const std::string& outbox_lines) {
    return config::parse_config(
        "postgres:\n  conninfo: dbname=app\n  table.include.list: public.outbox, inventory.outbox\n"
        "kafka: {bootstrap.servers: \"k:9092\"}\noutbox:\n" +
            outbox_lines,
        "router.yaml");
}

const TransactionContext kTxn{0x16B3748, 1'700'000'000'123, 7};

pgoutput::LogicalMessage message(std::string_view content, bool transactional = true,
                                 std::string_view prefix = "outbox") {
    return {transactional, 0x16B3700, prefix, content};
}

std::optional<std::string> header(const OutboxRecord& record, std::string_view name) {
    for (const auto& h : record.headers)
        if (h.name == name) return h.value ? std::optional<std::string>(*h.value) : std::nullopt;
    BOOST_FAIL("no header " << name);
    return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_CASE(only_configured_tables_bind_and_overrides_apply_to_their_table) {
    const auto config = config_with(
        "  table.fields.additional.placement: type:header:eventType\n"
        "  table.overrides:\n"
        "    inventory.outbox:\n"
        "      table.field.event.key: sku\n"
        "      route.topic.replacement: \"inventory.${routedByValue}\"\n");
    OutboxRouter router(config);
    auto columns = debezium_columns();
    BOOST_TEST(!router.bind({1, "public", "orders", 'd', columns}));

    const auto shared = router.bind({1, "public", "outbox", 'd', columns});
    BOOST_REQUIRE(shared);
    BOOST_TEST(shared->name().qualified() == "public.outbox");
    const pgoutput::ColumnValue row[] = {text("i-1"), text("Order"), text("k-1"), text("Created"), text("{}")};
    const auto record = router.route_insert(*shared, row, kTxn);
    BOOST_TEST(record.topic == "outbox.event.Order");
    BOOST_TEST(record.key.value() == "k-1");
    BOOST_TEST(header(record, "eventType").value() == "Created");

    // The override names a key column Debezium's table does not have.
    BOOST_CHECK_EXCEPTION(
        router.bind({2, "inventory", "outbox", 'd', columns}), DefiniteError,
        [](const DefiniteError& e) { return contains(e.what(), "inventory.outbox has no column \"sku\""); });
    columns.push_back({0, "sku", pg_oid::kText, -1});
    const auto inventory = router.bind({2, "inventory", "outbox", 'd', columns});
    const pgoutput::ColumnValue inventory_row[] = {text("i-2"),     text("Item"), text("k-2"),
                                                   text("Stocked"), text("{}"),   text("SKU-9")};
    const auto routed = router.route_insert(*inventory, inventory_row, kTxn);
    BOOST_TEST(routed.topic == "inventory.Item");
    BOOST_TEST(routed.key.value() == "SKU-9");
    BOOST_TEST(header(routed, "eventType").value() == "Stocked");  // inherited from the shared settings
}

BOOST_AUTO_TEST_CASE(override_for_a_table_not_streamed_is_a_config_error) {
    const auto config = config_with("  table.overrides:\n    billing.outbox: {}\n");
    try {
        OutboxRouter router(config);
        BOOST_FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        BOOST_TEST(std::string(e.what()) ==
                   "router.yaml:7: outbox.table.overrides: billing.outbox is not in postgres.table.include.list");
    }
}

BOOST_AUTO_TEST_CASE(invalid_regex_in_an_override_is_a_config_error_at_its_line) {
    const auto config = config_with("  table.overrides:\n    outbox:\n      route.topic.regex: \"(x\"\n");
    BOOST_CHECK_EXCEPTION(OutboxRouter{config}, ConfigError, [](const ConfigError& e) {
        return std::string(e.what()) == "router.yaml:8: outbox.route.topic.regex: \"(x\" as Java reads it: Unclosed group (near index 2)";
    });
}

BOOST_AUTO_TEST_CASE(updates_warn_or_log_an_error_and_are_skipped_or_stop_the_router) {
    const auto columns = debezium_columns();
    const pgoutput::Relation relation{1, "public", "outbox", 'd', columns};
    {
        const auto config = config_with("  route.by.field: aggregatetype\n");
        OutboxRouter router(config);
        StderrCapture log;
        router.on_update(*router.bind(relation), kTxn);
        BOOST_TEST(contains(log.text(),
                            "WARN  skipping UPDATE on outbox table public.outbox in the transaction "
                            "committing at LSN 0/16B3748"));
    }
    {
        const auto config = config_with("  table.op.invalid.behavior: error\n");
        OutboxRouter router(config);
        StderrCapture log;
        router.on_update(*router.bind(relation), kTxn);
        BOOST_TEST(contains(log.text(), "ERROR skipping UPDATE on outbox table public.outbox"));
    }
    const auto config = config_with("  table.op.invalid.behavior: fatal\n");
    OutboxRouter router(config);
    try {
        router.on_update(*router.bind(relation), kTxn);
        BOOST_FAIL("expected DefiniteError");
    } catch (const InvalidRowError&) {
        BOOST_FAIL("an UPDATE under fatal stops the router; it is not an invalid row");
    } catch (const DefiniteError& e) {
        BOOST_TEST(contains(e.what(),
                            "UPDATE on outbox table public.outbox in the transaction committing at LSN "
                            "0/16B3748"));
        BOOST_TEST(contains(e.what(), "table.op.invalid.behavior is fatal"));
    }
}

BOOST_AUTO_TEST_CASE(messages_are_watched_only_for_listed_prefixes) {
    const auto off = config_with("  route.by.field: aggregatetype\n");
    BOOST_TEST(!OutboxRouter(off).watches_prefix("outbox"));
    const auto on = config_with("  message.prefix.include.list: outbox, billing\n");
    OutboxRouter router(on);
    BOOST_TEST(router.watches_prefix("outbox"));
    BOOST_TEST(router.watches_prefix("billing"));
    BOOST_TEST(!router.watches_prefix("outbox-router-heartbeat"));
    BOOST_TEST(!router.watches_prefix("out"));
}

BOOST_AUTO_TEST_CASE(transactional_message_fields_play_the_columns) {
    const auto config = config_with(
        "  message.prefix.include.list: outbox\n"
        "  table.fields.additional.placement: "
        "\"type:header:eventType,urgent:header,shard:partition,version:envelope\"\n");
    OutboxRouter router(config);
    const auto record = router.route_message(
        message(R"({"id": "4d47e190-0402-4048-bc2c-89dd54343cdc", "aggregatetype": "Order", "aggregateid": 1001,)"
                R"( "type": "OrderCreated", "urgent": true, "shard": 1, "version": 2.5,)"
                R"( "payload": {"id": 1, "items": [{"sku": "a"}]}})"),
        kTxn);
    BOOST_TEST(record.topic == "outbox.event.Order");
    BOOST_TEST(record.key.value() == "1001");
    BOOST_TEST(record.partition == 1);
    BOOST_TEST(header(record, "id").value() == "4d47e190-0402-4048-bc2c-89dd54343cdc");
    BOOST_TEST(header(record, "eventType").value() == "OrderCreated");
    BOOST_TEST(header(record, "urgent").value() == "true");
    BOOST_TEST(record.value.value() == R"({"payload":"{\"id\":1,\"items\":[{\"sku\":\"a\"}]}","version":2.5})");
    BOOST_TEST(record.timestamp_ms == 1'700'000'000'123);
}

BOOST_AUTO_TEST_CASE(message_payload_string_is_the_value_and_expansion_and_timestamps_apply) {
    const auto config = config_with(
        "  message.prefix.include.list: outbox\n"
        "  table.field.event.timestamp: at\n"
        "  table.expand.json.payload: true\n");
    OutboxRouter router(config);
    const auto text_payload = router.route_message(
        message(
            R"({"id": 1, "aggregatetype": "A", "aggregateid": "k", "payload": "{\"a\": null, \"b\": 2}", "at": "2024-01-02T03:04:05.123Z"})"),
        kTxn);
    BOOST_TEST(text_payload.value.value() == R"({"b":2})");
    BOOST_TEST(text_payload.timestamp_ms == 1'704'164'645'123);
    const auto epoch = router.route_message(
        message(R"({"id": 1, "aggregatetype": "A", "aggregateid": "k", "payload": null, "at": 1704164645999})"), kTxn);
    BOOST_TEST(!epoch.value.has_value());
    BOOST_TEST(epoch.timestamp_ms == 1'704'164'645'999);
    const auto null_time = router.route_message(
        message(R"({"id": 1, "aggregatetype": "A", "aggregateid": "k", "payload": [], "at": null})"), kTxn);
    BOOST_TEST(null_time.timestamp_ms == 1'700'000'000'123);
    BOOST_TEST(null_time.value.value() == "[]");
}

BOOST_AUTO_TEST_CASE(non_transactional_message_is_refused_and_says_why) {
    const auto config = config_with("  message.prefix.include.list: outbox\n");
    OutboxRouter router(config);
    const std::string content = R"({"id": 1, "aggregatetype": "A", "aggregateid": "k", "payload": "p"})";
    const auto refused = invalid_row([&] { router.route_message(message(content, false), {0x16B3700, 0, 0}); });
    BOOST_TEST(contains(refused.what(), "logical decoding message with prefix \"outbox\", at LSN 0/16B3700"));
    BOOST_TEST(contains(refused.what(), "not transactional"));
    BOOST_TEST(contains(refused.what(), "pg_logical_emit_message(true, ...)"));
    BOOST_TEST(refused.source == "message prefix outbox");
    BOOST_TEST(refused.value.value() == content);
}

BOOST_AUTO_TEST_CASE(malformed_messages_are_invalid_rows) {
    const auto config = config_with("  message.prefix.include.list: outbox\n");
    OutboxRouter router(config);
    const auto not_json = invalid_row([&] { router.route_message(message("{\"id\": "), kTxn); });
    BOOST_TEST(contains(not_json.what(),
                        "logical decoding message with prefix \"outbox\", transaction committing at "
                        "LSN 0/16B3748: the content is not valid JSON"));
    BOOST_TEST(not_json.value.value() == "{\"id\": ");
    BOOST_TEST(contains(invalid_row([&] { router.route_message(message("[1]"), kTxn); }).what(),
                        "the content is a JSON array, not an object of outbox fields"));
    BOOST_TEST(contains(invalid_row([&] { router.route_message(message("\xff"), kTxn); }).what(), "not valid JSON"));
    // Valid JSON the parser cannot hold (a number past a double's range) is a bad row, not a crash.
    BOOST_TEST(contains(invalid_row([&] { router.route_message(message("{\"id\": 1" + std::string(400, '0') + "}"), kTxn); }).what(),
                        "the content cannot be read"));
    // Nested past any sane document: refused before anything recurses over it.
    const std::string deep = "{\"payload\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    const auto too_deep = invalid_row([&] { router.route_message(message(deep), kTxn); });
    BOOST_TEST(contains(too_deep.what(), "LSN 0/16B3748: the content nests arrays and objects deeper than 1000 levels"));
    BOOST_TEST(too_deep.value.value() == deep);

    const auto missing =
        invalid_row([&] { router.route_message(message(R"({"id": 1, "aggregateid": "k", "payload": "p"})"), kTxn); });
    BOOST_TEST(contains(missing.what(), "field \"aggregatetype\" (outbox.route.by.field) is missing"));
    const auto null_route = invalid_row([&] {
        router.route_message(message(R"({"id": 1, "aggregatetype": null, "aggregateid": "k", "payload": "p"})"), kTxn);
    });
    BOOST_TEST(contains(null_route.what(),
                        "logical decoding message with prefix \"outbox\", field \"aggregatetype\" "
                        "(outbox.route.by.field), transaction committing at LSN 0/16B3748: the "
                        "value is NULL"));
    BOOST_TEST(null_route.key.value() == "k");
    BOOST_TEST(null_route.value.value() == "p");
}

BOOST_AUTO_TEST_CASE(message_fields_of_the_wrong_kind_are_invalid_rows) {
    const auto config = config_with(
        "  message.prefix.include.list: outbox\n"
        "  table.fields.additional.placement: shard:partition\n"
        "  table.field.event.timestamp: at\n");
    OutboxRouter router(config);
    BOOST_TEST(contains(invalid_row([&] {
                            router.route_message(message(R"({"id": 1, "aggregatetype": "A", "aggregateid": "k",)"
                                                         R"( "payload": "p", "at": 1, "shard": "2"})"),
                                                 kTxn);
                        }).what(),
                        "field \"shard\" (outbox.table.fields.additional.placement) is text, not an integer"));
    BOOST_TEST(contains(invalid_row([&] {
                            router.route_message(message(R"({"id": 1, "aggregatetype": "A", "aggregateid": "k",)"
                                                         R"( "payload": "p", "at": "yesterday", "shard": 0})"),
                                                 kTxn);
                        }).what(),
                        "\"yesterday\" is not a timestamp"));
    BOOST_TEST(contains(invalid_row([&] {
                            router.route_message(message(R"({"id": 1, "aggregatetype": "A", "aggregateid": "k",)"
                                                         R"( "payload": "p", "at": true, "shard": 0})"),
                                                 kTxn);
                        }).what(),
                        "field \"at\" (outbox.table.field.event.timestamp) is boolean"));
    const auto nulls = router.route_message(message(R"({"id": null, "aggregatetype": "A", "aggregateid": null,)"
                                                    R"( "payload": "p", "at": null, "shard": null})"),
                                            kTxn);
    BOOST_TEST(nulls.partition == -1);  // a null field has no type, so it fits the partition
    BOOST_TEST(!nulls.key.has_value());
    BOOST_TEST(!nulls.headers[0].value.has_value());
    BOOST_TEST(contains(invalid_row([&] {
                            router.route_message(message(R"({"id": 1, "aggregatetype": "A", "aggregateid": "k",)"
                                                         R"( "payload": "p", "at": 1})"),
                                                 kTxn);
                        }).what(),
                        "field \"shard\" (outbox.table.fields.additional.placement), transaction committing at LSN "
                        "0/16B3748: there is no such field and table.field.additional.missing is error"));
}

// Debezium emits an UPDATE that changes the primary key as a delete and a create; the EventRouter
// drops the delete and routes the create, whose first header __debezium.oldkey is the old key.
BOOST_AUTO_TEST_CASE(a_primary_key_change_routes_the_new_row_with_the_old_key_first) {
    auto columns = debezium_columns();
    columns[0].flags = 1;  // id: the primary key, as RELATION flags it
    const pgoutput::Relation relation{1, "public", "outbox", 'd', columns};
    const pgoutput::ColumnValue old_key[] = {text("4d47e190-0402-4048-bc2c-89dd54343cdc"), null(), null(), null(), null()};
    const pgoutput::ColumnValue new_row[] = {text("5e58f2a1-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k-1"),
                                             text("Created"), text("{\"a\": 1}")};
    const pgoutput::Update change{1, 'K', old_key, new_row};
    {
        const auto config = config_with("  route.by.field: aggregatetype\n");
        OutboxRouter router(config);
        const auto table = router.bind(relation);
        BOOST_TEST(router.changes_key(*table, change));
        const auto record = router.route_key_change(*table, change, kTxn);
        BOOST_TEST(record.topic == "outbox.event.Order");
        BOOST_TEST(record.key.value() == "k-1");
        BOOST_REQUIRE(record.headers.size() == 2u);
        BOOST_TEST(record.headers[0].name == "__debezium.oldkey");
        BOOST_TEST(record.headers[0].value.value() == R"({"id":"4d47e190-0402-4048-bc2c-89dd54343cdc"})");
        BOOST_TEST(record.headers[1].name == "id");
        BOOST_TEST(record.headers[1].value.value() == "5e58f2a1-0402-4048-bc2c-89dd54343cdc");
        // The next insert carries no old key.
        BOOST_TEST(router.route_insert(*table, new_row, kTxn).headers.size() == 1u);

        // The same key ('K' also comes with a toasted key), or a whole old row (REPLICA IDENTITY
        // FULL flags every column), is an ordinary UPDATE.
        const pgoutput::ColumnValue same_key[] = {new_row[0], null(), null(), null(), null()};
        BOOST_TEST(!router.changes_key(*table, pgoutput::Update{1, 'K', same_key, new_row}));
        BOOST_TEST(!router.changes_key(*table, pgoutput::Update{1, 'O', old_key, new_row}));
        BOOST_TEST(!router.changes_key(*table, pgoutput::Update{1, 0, {}, new_row}));
    }
    // Debezium's context headers come after it; JsonConverter headers write it as JSON, with
    // schemas the key's struct schema.
    const auto config = config::parse_config(
        "postgres:\n  conninfo: dbname=app\nkafka: {bootstrap.servers: \"k:9092\"}\n"
        "extended.headers.enabled: true\ntopic.prefix: dbz\n"
        "header.converter: org.apache.kafka.connect.json.JsonConverter\nheader.converter.schemas.enable: true\n",
        "router.yaml");
    OutboxRouter router(config);
    const auto record = router.route_key_change(*router.bind(relation), change, kTxn);
    BOOST_REQUIRE(record.headers.size() == 6u);
    BOOST_TEST(record.headers[0].name == "__debezium.oldkey");
    BOOST_TEST(record.headers[0].value.value() ==
               R"({"schema":{"type":"struct","fields":[{"type":"string","optional":false,"name":"io.debezium.data.Uuid",)"
               R"("version":1,"field":"id"}],"optional":false,"name":"dbz.public.outbox.Key"},)"
               R"("payload":{"id":"4d47e190-0402-4048-bc2c-89dd54343cdc"}})");
    BOOST_TEST(record.headers[1].name == "__debezium.context.connectorLogicalName");
}

// message.key.columns makes other columns the record key: Debezium reads the old key from the
// old tuple, where a column outside the replica identity is NULL, so a primary-key UPDATE changes
// the key (old key {"aggregateid":null}); under REPLICA IDENTITY FULL only a change of those
// columns does, and without an old tuple nothing does.
BOOST_AUTO_TEST_CASE(message_key_columns_decide_the_key_and_its_changes) {
    auto columns = debezium_columns();
    columns[0].flags = 1;
    const pgoutput::Relation relation{1, "public", "outbox", 'd', columns};
    const auto config = config_with("  message.key.columns: 'other\\.x:id;public\\.out.*:aggregateid'\n");
    OutboxRouter router(config);
    const auto table = router.bind(relation);
    const pgoutput::ColumnValue old_key[] = {text("4d47e190-0402-4048-bc2c-89dd54343cdc"), null(), null(), null(), null()};
    const pgoutput::ColumnValue new_row[] = {text("5e58f2a1-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k-1"),
                                             text("Created"), text("{}")};
    const pgoutput::Update change{1, 'K', old_key, new_row};
    BOOST_TEST(router.changes_key(*table, change));
    const auto record = router.route_key_change(*table, change, kTxn);
    BOOST_TEST(record.headers[0].name == "__debezium.oldkey");
    BOOST_TEST(record.headers[0].value.value() == R"({"aggregateid":null})");
    const pgoutput::ColumnValue old_row[] = {new_row[0], text("Order"), text("k-0"), text("Created"), text("{}")};
    BOOST_TEST(router.changes_key(*table, pgoutput::Update{1, 'O', old_row, new_row}));
    BOOST_TEST(!router.changes_key(*table, pgoutput::Update{1, 'O', new_row, new_row}));
    BOOST_TEST(!router.changes_key(*table, pgoutput::Update{1, 0, {}, new_row}));
    // A key column the table lacks is an error when the table is bound.
    const auto missing = config_with("  message.key.columns: 'public.outbox:tenant'\n");
    OutboxRouter strict(missing);
    BOOST_CHECK_THROW(strict.bind(relation), DefiniteError);
}

// A NOT NULL message.key.columns column outside the replica identity is absent from a primary-key
// UPDATE's old key: Debezium writes the column's default there, else its type's fallback (zero,
// false, "", the epoch without fractional digits, BigDecimal zero at the column's scale), and
// compares that with the new key to see a change. A nullable column stays null.
BOOST_AUTO_TEST_CASE(an_absent_not_null_key_column_is_its_default_or_its_type_fallback) {
    auto columns = debezium_columns();
    columns[0].flags = 1;
    columns.push_back({0, "k_int", pg_oid::kInt4, -1});
    columns.push_back({0, "k_text", pg_oid::kText, -1});
    columns.push_back({0, "k_bool", pg_oid::kBool, -1});
    columns.push_back({0, "k_tz", pg_oid::kTimestamptz, 3});
    columns.push_back({0, "k_num", pg_oid::kNumeric, ((10 << 16) | 2) + 4});
    columns.push_back({0, "k_def", pg_oid::kInt4, -1});
    columns.push_back({0, "k_date", pg_oid::kDate, -1});
    columns.push_back({0, "k_bytea", pg_oid::kBytea, -1});
    columns.push_back({0, "k_nullable", pg_oid::kInt4, -1});
    const pgoutput::Relation relation{1, "public", "outbox", 'd', columns};
    const std::string key_columns =
        "  message.key.columns: 'public\\.outbox:k_int,k_text,k_bool,k_tz,k_num,k_def,k_date,k_bytea,k_nullable'\n";
    const auto catalog = [](std::uint32_t, const config::TableName&) {
        return std::vector<CatalogColumn>{{"k_int", true, {}},  {"k_text", true, {}}, {"k_bool", true, {}},
                                          {"k_tz", true, {}},   {"k_num", true, {}},  {"k_def", true, "7"},
                                          {"k_date", true, {}}, {"k_bytea", true, {}}, {"k_nullable", false, {}}};
    };
    std::vector<pgoutput::ColumnValue> old_key(columns.size(), null());
    old_key[0] = text("4d47e190-0402-4048-bc2c-89dd54343cdc");
    std::vector<pgoutput::ColumnValue> new_row{text("5e58f2a1-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k-1"),
                                               text("Created"), text("{}"), text("0"), text(""), text("f"),
                                               text("1970-01-01 00:00:00+00"), text("0.00"), text("7"), text("1970-01-01"),
                                               text("\\x"), null()};
    {
        // Every column at its fallback: the same key, so an update (which the EventRouter drops);
        // a timestamptz never is (the fallback has no fractional digits, the column's values do),
        // nor is bytea under binary.handling.mode bytes (a byte[] against a ByteBuffer).
        const auto config = config_with(
            "  message.key.columns: 'public\\.outbox:k_int,k_text,k_bool,k_num,k_def,k_date,k_nullable'\n");
        OutboxRouter router(config);
        router.set_catalog(catalog);
        BOOST_TEST(!router.changes_key(*router.bind(relation), pgoutput::Update{1, 'K', old_key, new_row}));
        const auto bytea = config_with("  message.key.columns: 'public\\.outbox:k_bytea'\n");
        OutboxRouter bytes_router(bytea);
        bytes_router.set_catalog(catalog);
        BOOST_TEST(bytes_router.changes_key(*bytes_router.bind(relation), pgoutput::Update{1, 'K', old_key, new_row}));
    }
    {
        const auto config = config_with(key_columns);
        OutboxRouter router(config);
        router.set_catalog(catalog);
        const auto table = router.bind(relation);
        BOOST_TEST(router.changes_key(*table, pgoutput::Update{1, 'K', old_key, new_row}));
        new_row[5] = text("5");
        const pgoutput::Update change{1, 'K', old_key, new_row};
        BOOST_TEST(router.route_key_change(*table, change, kTxn).headers[0].value.value() ==
                   R"({"k_int":0,"k_text":"","k_bool":false,"k_tz":"1970-01-01T00:00:00Z","k_num":0.00,"k_def":7,)"
                   R"("k_date":0,"k_bytea":"","k_nullable":null})");
    }
    const auto json_headers = config::parse_config(
        "postgres:\n  conninfo: dbname=app\n  table.include.list: public.outbox\nkafka: {bootstrap.servers: \"k:9092\"}\n"
        "header.converter: org.apache.kafka.connect.json.JsonConverter\nheader.converter.schemas.enable: false\n"
        "outbox:\n" + key_columns,
        "router.yaml");
    OutboxRouter router(json_headers);
    router.set_catalog(catalog);
    const auto table = router.bind(relation);
    BOOST_TEST(router.route_key_change(*table, pgoutput::Update{1, 'K', old_key, new_row}, kTxn).headers[0].value.value() ==
               R"({"k_int":0,"k_text":"","k_bool":false,"k_tz":"1970-01-01T00:00:00Z","k_num":"AA==","k_def":7,)"
               R"("k_date":0,"k_bytea":"","k_nullable":null})");
}

// A composite key of other types: in Kafka's Values text a precise decimal is a bare number (a
// BigDecimal), as are integers; with schemas each key field's schema carries its column's default.
BOOST_AUTO_TEST_CASE(a_composite_key_change_writes_each_key_column_as_debezium_types_it) {
    auto columns = debezium_columns();
    columns[0].flags = 1;
    columns.push_back({1, "seq", pg_oid::kInt8, -1});
    columns.push_back({1, "amount", pg_oid::kNumeric, ((10 << 16) | 2) + 4});
    const pgoutput::Relation relation{1, "public", "outbox", 'd', columns};
    const pgoutput::ColumnValue old_key[] = {text("4d47e190-0402-4048-bc2c-89dd54343cdc"), null(), null(), null(), null(),
                                             text("9000000000"), text("12.50")};
    const pgoutput::ColumnValue new_row[] = {text("5e58f2a1-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k-1"),
                                             text("Created"), text("{}"), text("9000000000"), text("12.50")};
    const pgoutput::Update change{1, 'K', old_key, new_row};
    {
        const auto plain = config_with("");
        OutboxRouter router(plain);
        const auto table = router.bind(relation);
        BOOST_TEST(router.changes_key(*table, change));
        BOOST_TEST(router.route_key_change(*table, change, kTxn).headers[0].value.value() ==
                   R"({"id":"4d47e190-0402-4048-bc2c-89dd54343cdc","seq":9000000000,"amount":12.50})");
    }
    const auto config = config::parse_config(
        "postgres:\n  conninfo: dbname=app\nkafka: {bootstrap.servers: \"k:9092\"}\ntopic.prefix: dbz\n"
        "header.converter: org.apache.kafka.connect.json.JsonConverter\nheader.converter.schemas.enable: true\n",
        "router.yaml");
    OutboxRouter router(config);
    router.set_catalog([](std::uint32_t, const config::TableName&) {
        return std::vector<CatalogColumn>{{"id", true, "gen_random_uuid()"}, {"seq", true, "42"}, {"amount", true, {}}};
    });
    BOOST_TEST(router.route_key_change(*router.bind(relation), change, kTxn).headers[0].value.value() ==
               R"({"schema":{"type":"struct","fields":[{"type":"string","optional":false,"name":"io.debezium.data.Uuid",)"
               R"("version":1,"default":"00000000-0000-0000-0000-000000000000","field":"id"},)"
               R"({"type":"int64","optional":false,"default":42,"field":"seq"},)"
               R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,)"
               R"("parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amount"}],"optional":false,)"
               R"("name":"dbz.public.outbox.Key"},"payload":{"id":"4d47e190-0402-4048-bc2c-89dd54343cdc",)"
               R"("seq":9000000000,"amount":"BOI="}})");
}

// Debezium infers no schema (null) for a top-level empty array to expand: headers-only, with
// JsonConverter schemas, the kept text goes out with a null schema; other kept payloads keep theirs.
BOOST_AUTO_TEST_CASE(an_empty_array_to_expand_is_written_with_a_null_schema) {
    const auto config = config::parse_config(
        "postgres:\n  conninfo: dbname=app\nkafka: {bootstrap.servers: \"k:9092\"}\ntopic.prefix: dbz\n"
        "value.converter: org.apache.kafka.connect.json.JsonConverter\nvalue.converter.schemas.enable: true\n"
        "outbox:\n  table.expand.json.payload: true\n",
        "router.yaml");
    OutboxRouter router(config);
    const auto table = router.bind({1, "public", "outbox", 'd', debezium_columns()});
    const auto route = [&](const std::string& payload) {
        const pgoutput::ColumnValue row[] = {text("i-1"), text("Order"), text("k-1"), text("Created"), text(payload)};
        return router.route_insert(*table, row, kTxn).value.value();
    };
    BOOST_TEST(route("[]") == R"({"schema":null,"payload":"[]"})");
    BOOST_TEST(route("[null]") ==
               R"({"schema":{"type":"string","optional":true,"name":"io.debezium.data.Json","version":1},"payload":"[null]"})");
}
