#define BOOST_TEST_MODULE routing
#include <boost/test/unit_test.hpp>

#include "outbox/router/event_router.hpp"
#include "outbox/router/outbox_table.hpp"
#include "outbox/router/topic_router.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::router;

namespace {
const config::Location kWhere{"router.yaml", 12};

std::string topic(const std::string& regex, const std::string& replacement, const std::string& value) {
    TopicRouter router(regex, replacement, kWhere);
    return router.topic_for(value);
}

constexpr std::uint32_t kText = 25, kUuid = 2950, kJsonb = 3802;

// The columns of Debezium's sample outbox table, in table order.
const pgoutput::RelationColumn kColumns[] = {
    {0, "id", kUuid, -1}, {0, "aggregatetype", kText, -1}, {0, "aggregateid", kText, -1},
    {0, "type", kText, -1}, {0, "payload", kJsonb, -1}};

pgoutput::Relation outbox_relation(std::span<const pgoutput::RelationColumn> columns = kColumns) {
    return {16384, "public", "outbox", 'd', columns};
}

pgoutput::ColumnValue text(std::string_view v) { return {pgoutput::ValueKind::text, v}; }
pgoutput::ColumnValue null() { return {pgoutput::ValueKind::null, {}}; }
}  // namespace

BOOST_AUTO_TEST_CASE(default_route_prefixes_the_aggregate_type) {
    BOOST_TEST(topic("(?<routedByValue>.*)", "outbox.event.${routedByValue}", "Order") == "outbox.event.Order");
}

BOOST_AUTO_TEST_CASE(regex_must_match_the_whole_value_or_the_value_is_the_topic) {
    BOOST_TEST(topic("Ord", "x.$0", "Order") == "Order");
    BOOST_TEST(topic("Ord.*", "x.$0", "Order") == "x.Order");
}

BOOST_AUTO_TEST_CASE(numbered_and_named_groups_and_escapes) {
    BOOST_TEST(topic("(\\w+)\\.(\\w+)", "$2-$1", "shop.Order") == "Order-shop");
    BOOST_TEST(topic("(?<domain>\\w+)_(?<kind>\\w+)", "events.${kind}.${domain}", "billing_Invoice") ==
               "events.Invoice.billing");
    BOOST_TEST(topic("(.*)", "cost\\$$1", "X") == "cost$X");
    // Java reads "$12" as group 12 only if it exists, else group 1 then "2".
    BOOST_TEST(topic("(a)(b)", "$12", "ab") == "a2");
}

BOOST_AUTO_TEST_CASE(dot_does_not_match_a_newline_so_such_values_stay_raw) {
    BOOST_TEST(topic("(?<routedByValue>.*)", "outbox.event.${routedByValue}", "a\nb") == "a\nb");
}

BOOST_AUTO_TEST_CASE(bad_regex_and_bad_replacement_are_config_errors_with_location) {
    try {
        TopicRouter("(unclosed", "x", kWhere);
        BOOST_FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        BOOST_TEST(std::string(e.what()).find("router.yaml:12: outbox.route.topic.regex") == 0u);
    }
    BOOST_CHECK_THROW(TopicRouter("(a)", "$2", kWhere), ConfigError);
    BOOST_CHECK_THROW(TopicRouter("(a)", "${nope}", kWhere), ConfigError);
    BOOST_CHECK_THROW(TopicRouter("(a)", "trailing$", kWhere), ConfigError);
}

BOOST_AUTO_TEST_CASE(legal_topic_names) {
    BOOST_TEST(is_legal_topic_name("outbox.event.Order_v1-x"));
    BOOST_TEST(!is_legal_topic_name(""));
    BOOST_TEST(!is_legal_topic_name("."));
    BOOST_TEST(!is_legal_topic_name(".."));
    BOOST_TEST(!is_legal_topic_name("has space"));
    BOOST_TEST(!is_legal_topic_name(std::string(250, 'a')));
    BOOST_TEST(is_legal_topic_name(std::string(249, 'a')));
}

BOOST_AUTO_TEST_CASE(binding_finds_configured_columns_and_names_a_missing_one) {
    config::OutboxSettings settings;
    const auto table = bind_outbox_table({"public", "outbox"}, outbox_relation(), settings);
    BOOST_TEST(table.id.index == 0u);
    BOOST_TEST(table.route_by.index == 1u);
    BOOST_TEST(table.key.index == 2u);
    BOOST_TEST(table.payload.index == 4u);

    settings.field_event_key = "aggregate_id";
    try {
        bind_outbox_table({"public", "outbox"}, outbox_relation(), settings);
        BOOST_FAIL("expected DefiniteError");
    } catch (const DefiniteError& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find("public.outbox") != std::string::npos);
        BOOST_TEST(message.find("\"aggregate_id\"") != std::string::npos);
        BOOST_TEST(message.find("outbox.table.field.event.key") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(row_becomes_a_debezium_default_record) {
    config::OutboxSettings settings;
    const auto table = bind_outbox_table({"public", "outbox"}, outbox_relation(), settings);
    EventRouter router(settings);
    const pgoutput::ColumnValue row[] = {text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("1001"),
                                         text("OrderCreated"), text(R"({"id": 1})")};
    const auto record = router.route({&table, 0x1000}, row, 1'700'000'000'123);
    BOOST_TEST(record.topic == "outbox.event.Order");
    BOOST_TEST(record.key.value() == "1001");
    BOOST_TEST(record.value.value() == R"({"id": 1})");
    BOOST_TEST(record.headers[0].value.value() == "4d47e190-0402-4048-bc2c-89dd54343cdc");
    BOOST_TEST(record.timestamp_ms == 1'700'000'000'123);
}

BOOST_AUTO_TEST_CASE(null_key_and_payload_give_no_key_and_a_null_value) {
    config::OutboxSettings settings;
    const auto table = bind_outbox_table({"public", "outbox"}, outbox_relation(), settings);
    EventRouter router(settings);
    const pgoutput::ColumnValue row[] = {text("id-1"), text("Order"), null(), null(), null()};
    const auto record = router.route({&table, 0x1000}, row, 0);
    BOOST_TEST(!record.key.has_value());
    BOOST_TEST(!record.value.has_value());
}

BOOST_AUTO_TEST_CASE(bytea_key_and_payload_are_raw_bytes_and_bytea_id_is_base64) {
    const pgoutput::RelationColumn columns[] = {{0, "id", kByteaOid, -1}, {0, "aggregatetype", kText, -1},
                                                {0, "aggregateid", kByteaOid, -1}, {0, "payload", kByteaOid, -1}};
    config::OutboxSettings settings;
    const auto table = bind_outbox_table({"public", "outbox"}, outbox_relation(columns), settings);
    EventRouter router(settings);
    const pgoutput::ColumnValue row[] = {text("\\x00ff10"), text("Order"), text("\\x0a0B"), text("\\x6869")};
    const auto record = router.route({&table, 0x1000}, row, 0);
    BOOST_TEST(record.key.value() == std::string("\x0a\x0b", 2));
    BOOST_TEST(record.value.value() == "hi");
    BOOST_TEST(record.headers[0].value.value() == "AP8Q");
}

BOOST_AUTO_TEST_CASE(unroutable_rows_are_definite_errors_naming_table_column_and_lsn) {
    config::OutboxSettings settings;
    settings.route_topic_replacement = "bad topic ${routedByValue}";
    const auto table = bind_outbox_table({"public", "outbox"}, outbox_relation(), settings);
    EventRouter router(settings);
    const pgoutput::ColumnValue null_route[] = {text("i"), null(), text("k"), text("t"), text("{}")};
    try {
        router.route({&table, 0x16B3748}, null_route, 0);
        BOOST_FAIL("expected DefiniteError");
    } catch (const DefiniteError& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find("public.outbox") != std::string::npos);
        BOOST_TEST(message.find("\"aggregatetype\"") != std::string::npos);
        BOOST_TEST(message.find("0/16B3748") != std::string::npos);
        BOOST_TEST(message.find("NULL") != std::string::npos);
    }
    const pgoutput::ColumnValue illegal[] = {text("i"), text("Order"), text("k"), text("t"), text("{}")};
    BOOST_CHECK_THROW(router.route({&table, 1}, illegal, 0), DefiniteError);
}

BOOST_AUTO_TEST_CASE(base64_and_bytea_helpers) {
    BOOST_TEST(base64_encode("") == "");
    BOOST_TEST(base64_encode("f") == "Zg==");
    BOOST_TEST(base64_encode("fo") == "Zm8=");
    BOOST_TEST(base64_encode("foo") == "Zm9v");
    std::string out;
    BOOST_TEST(decode_bytea_hex("\\x", out));
    BOOST_TEST(out.empty());
    BOOST_TEST(!decode_bytea_hex("\\x0", out));
    BOOST_TEST(!decode_bytea_hex("\\xzz", out));
    BOOST_TEST(!decode_bytea_hex("plain", out));
}
