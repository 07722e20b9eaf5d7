#define BOOST_TEST_MODULE routing
#include <boost/test/unit_test.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "outbox/config/outbox_columns.hpp"
#include "outbox/router/topic_router.hpp"
#include "outbox/util/errors.hpp"
#include "router_test_support.hpp"

using namespace outbox;
using namespace outbox::router;
using namespace outbox::router::test;

namespace {
const config::Location kRegexAt{"router.yaml", 12};
const config::Location kReplacementAt{"router.yaml", 13};

std::string topic(const std::string& regex, const std::string& replacement, const std::string& value) {
    TopicRouter router(regex, replacement, kRegexAt, kReplacementAt);
    const auto& route = router.route_for(value);
    BOOST_TEST(route.legal == is_legal_topic_name(route.topic));
    return route.topic;
}

constexpr const char* kUuid = "4d47e190-0402-4048-bc2c-89dd54343cdc";

std::vector<pgoutput::ColumnValue> order_row(std::string_view payload = R"({"id": 1, "customerId": 123})") {
    return {text(kUuid), text("Order"), text("1001"), text("OrderCreated"), text(payload)};
}

std::string header_value(const OutboxRecord& record, std::size_t i) {
    BOOST_REQUIRE(i < record.headers.size());
    BOOST_REQUIRE(record.headers[i].value.has_value());
    return std::string(*record.headers[i].value);
}

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

// Java's meanings, which PCRE2 gives otherwise (tests/parity/test_java_patterns.cpp compares
// generated patterns with java.util.regex itself).
BOOST_AUTO_TEST_CASE(the_regex_is_read_as_java_reads_it) {
    // \p{Upper} and \p{Lower} are ASCII: Ä is neither.
    BOOST_TEST(topic("\\p{Upper}?\\p{Lower}*(.*)_(\\d)", "R.$1.$2", "\u00c4rger_1") == "R.\u00c4rger.1");
    BOOST_TEST(topic("(\\p{Upper})\\p{Lower}+", "$1", "\u00c4rger") == "\u00c4rger");
    BOOST_TEST(topic("[\\p{Alnum}\\p{Punct}]+", "ok", "a.b-1") == "ok");
    BOOST_TEST(topic("\\p{XDigit}+\\p{Blank}\\p{Graph}\\p{Print}", "ok", "Af \x7e ") == "ok");
    // [[:alpha:]] is a class nested in a class: ':', 'a', 'l', 'p' and 'h'.
    BOOST_TEST(topic("[[:alpha:]]+", "ok", "alpha") == "ok");
    BOOST_TEST(topic("[[:alpha:]]+", "ok", "beta") == "beta");
    // Intersections, and ^ negating a whole union.
    BOOST_TEST(topic("[a-z&&[^q]]+", "ok", "abc") == "ok");
    BOOST_TEST(topic("[a-z&&[^q]]+", "ok", "aqc") == "aqc");
    BOOST_TEST(topic("[^a[b]]", "ok", "b") == "b");
    BOOST_TEST(topic("[^a[b]]", "ok", "c") == "ok");
    // Quoting, and (?i) folding ASCII letters only (not K to the Kelvin sign, nor \u00e4 to \u00c4).
    BOOST_TEST(topic("\\Q.*\\E(.)", "$1", ".*x") == "x");
    BOOST_TEST(topic("\\Q.*\\E(.)", "$1", "ab") == "ab");
    BOOST_TEST(topic("(?i)k\u00e4", "ok", "K\u00e4") == "ok");
    BOOST_TEST(topic("(?i)k\u00e4", "ok", "\u212a\u00e4") == "\u212a\u00e4");
    BOOST_TEST(topic("(?i)k\u00e4", "ok", "k\u00c4") == "k\u00c4");
    // Java's line terminators: `.` matches none of them.
    BOOST_TEST(topic("a.b", "ok", "a\u2028b") == "a\u2028b");
    // A possessive quantifier on a group takes each repetition whole, never giving part back to
    // the next: ([a-z]+){2}+ cannot match "abc" in Java (the first repetition holds all of it).
    BOOST_TEST(topic("([a-z]+){2}+", "ok", "abc") == "abc");
    BOOST_TEST(topic("([a-z]+){2}", "ok", "abc") == "ok");
    BOOST_TEST(topic("(?:ab|a)++c", "ok", "abc") == "ok");
    // RegexRouter's replaceFirst replaces the first match from the start, not the whole value.
    BOOST_TEST(topic("a|ab", "x", "ab") == "xb");
    // Constructs without a translation are refused at load, naming them.
    for (const char* refused : {"\\bx", "(a)\\1", "(?m)a", "\\p{IsLatin}", "\\p{InGreek}", "[a&&]"}) {
        try {
            TopicRouter(refused, "x", kRegexAt, kReplacementAt);
            BOOST_ERROR("expected ConfigError for " << refused);
        } catch (const ConfigError& e) {
            BOOST_TEST(contains(e.what(), "is not supported"), e.what());
        }
    }
    // Nesting is bounded: no pattern exhausts the stack.
    BOOST_CHECK_THROW(TopicRouter(std::string(100000, '(') + std::string(100000, ')'), "x", kRegexAt, kReplacementAt),
                      ConfigError);
    BOOST_CHECK_THROW(TopicRouter(std::string(100000, '[') + "a" + std::string(100000, ']'), "x", kRegexAt, kReplacementAt),
                      ConfigError);
    // What Java refuses, the router refuses.
    for (const char* invalid : {"a{", "*a", "\\y", "[a", "x{2,1}", "(?<a_b>x)"})
        BOOST_CHECK_THROW(TopicRouter(invalid, "x", kRegexAt, kReplacementAt), ConfigError);
}

BOOST_AUTO_TEST_CASE(bad_regex_and_bad_replacement_are_config_errors_at_their_own_lines) {
    try {
        TopicRouter("(unclosed", "x", kRegexAt, kReplacementAt);
        BOOST_FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        BOOST_TEST(std::string(e.what()).find("router.yaml:12: outbox.route.topic.regex") == 0u);
    }
    try {
        TopicRouter("(a)", "$2", kRegexAt, kReplacementAt);
        BOOST_FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
        BOOST_TEST(std::string(e.what()).find("router.yaml:13: outbox.route.topic.replacement") == 0u);
    }
    BOOST_CHECK_THROW(TopicRouter("(a)", "${nope}", kRegexAt, kReplacementAt), ConfigError);
    BOOST_CHECK_THROW(TopicRouter("(a)", "trailing$", kRegexAt, kReplacementAt), ConfigError);
}

BOOST_AUTO_TEST_CASE(legal_topic_names) {
    BOOST_TEST(is_legal_topic_name("outbox.event.Order_v1-x"));
    BOOST_TEST(!is_legal_topic_name(""));
    BOOST_TEST(!is_legal_topic_name("."));
    BOOST_TEST(!is_legal_topic_name(".."));
    BOOST_TEST(!is_legal_topic_name("has space"));
    BOOST_TEST(!is_legal_topic_name("ordér"));
    BOOST_TEST(!is_legal_topic_name(std::string(250, 'a')));
    BOOST_TEST(is_legal_topic_name(std::string(249, 'a')));
}

BOOST_AUTO_TEST_CASE(binding_finds_configured_columns_and_names_a_missing_one) {
    const auto columns = debezium_columns();
    const pgoutput::Relation relation{16384, "public", "outbox", 'd', columns};
    config::OutboxSettings settings;
    const auto table = bind_outbox_table({"public", "outbox"}, relation, settings);
    BOOST_TEST(table.id.index == 0u);
    BOOST_TEST(table.route_by.index == 1u);
    BOOST_TEST(table.key.index == 2u);
    BOOST_TEST(table.payload.index == 4u);
    BOOST_TEST(!table.timestamp.has_value());

    settings.field_event_key = "aggregate_id";
    try {
        bind_outbox_table({"public", "outbox"}, relation, settings);
        BOOST_FAIL("expected DefiniteError");
    } catch (const DefiniteError& e) {
        const std::string message = e.what();
        BOOST_TEST(contains(message, "public.outbox"));
        BOOST_TEST(contains(message, "\"aggregate_id\""));
        BOOST_TEST(contains(message, "outbox.table.field.event.key"));
    }
    BOOST_TEST(config::missing_outbox_columns({"id", "aggregatetype", "payload"}, settings) ==
               std::vector<std::string>{"\"aggregate_id\" (outbox.table.field.event.key)"});
}

BOOST_AUTO_TEST_CASE(timestamp_and_partition_columns_must_exist_and_have_a_usable_type) {
    const auto columns = debezium_columns();
    const pgoutput::Relation relation{16384, "public", "outbox", 'd', columns};
    config::OutboxSettings settings;
    settings.field_event_timestamp = "created_at";
    BOOST_CHECK_EXCEPTION(
        bind_outbox_table({"public", "outbox"}, relation, settings), DefiniteError, [](const DefiniteError& e) {
            return contains(e.what(), "no column \"created_at\" (outbox.table.field.event.timestamp)");
        });
    BOOST_TEST(config::missing_outbox_columns({"id", "aggregatetype", "aggregateid", "payload"}, settings) ==
               std::vector<std::string>{"\"created_at\" (outbox.table.field.event.timestamp)"});

    settings.field_event_timestamp = "type";  // text
    BOOST_CHECK_EXCEPTION(bind_outbox_table({"public", "outbox"}, relation, settings), DefiniteError,
                          [](const DefiniteError& e) {
                              return contains(e.what(),
                                              "column \"type\" (outbox.table.field.event.timestamp) is text, "
                                              "not a timestamp, timestamptz or integer");
                          });

    settings.field_event_timestamp.clear();
    settings.additional_fields = {{"aggregateid", config::Placement::partition, "aggregateid"}};
    BOOST_CHECK_EXCEPTION(bind_outbox_table({"public", "outbox"}, relation, settings), DefiniteError,
                          [](const DefiniteError& e) {
                              return contains(e.what(), "is text, not an integer, so it cannot be a partition");
                          });
}

BOOST_AUTO_TEST_CASE(row_becomes_a_debezium_default_record) {
    TableFixture fixture;
    const auto record = fixture.route(order_row());
    BOOST_TEST(record.topic == "outbox.event.Order");
    BOOST_TEST(record.partition == -1);
    BOOST_TEST(record.key.value() == "1001");
    BOOST_TEST(record.value.value() == R"({"id": 1, "customerId": 123})");  // the jsonb text byte for byte
    BOOST_TEST(record.headers.size() == 1u);
    BOOST_TEST(record.headers[0].name == "id");
    BOOST_TEST(header_value(record, 0) == kUuid);
    BOOST_TEST(record.timestamp_ms == 1'700'000'000'123);  // the commit time
}

BOOST_AUTO_TEST_CASE(custom_id_key_and_payload_columns) {
    config::OutboxSettings settings;
    settings.field_event_id = "event_id";
    settings.field_event_key = "order_id";
    settings.field_event_payload = "body";
    settings.route_by_field = "kind";
    TableFixture fixture({{0, "kind", pg_oid::kText, -1},
                          {0, "order_id", pg_oid::kInt8, -1},
                          {0, "event_id", pg_oid::kInt4, -1},
                          {0, "body", pg_oid::kText, -1}},
                         settings);
    const auto record = fixture.route({text("Shipment"), text("9007199254740993"), text("42"), text("shipped")});
    BOOST_TEST(record.topic == "outbox.event.Shipment");
    BOOST_TEST(record.key.value() == "9007199254740993");
    BOOST_TEST(header_value(record, 0) == "42");
    BOOST_TEST(record.value.value() == "shipped");
}

BOOST_AUTO_TEST_CASE(null_key_and_payload_give_no_key_and_a_null_value) {
    TableFixture fixture;
    const auto record = fixture.route({text("id-1"), text("Order"), null(), null(), null()});
    BOOST_TEST(!record.key.has_value());
    BOOST_TEST(!record.value.has_value());
    BOOST_TEST(record.topic == "outbox.event.Order");
}

BOOST_AUTO_TEST_CASE(bytea_key_and_payload_are_raw_bytes_and_bytea_id_is_base64) {
    TableFixture fixture({{0, "id", pg_oid::kBytea, -1},
                          {0, "aggregatetype", pg_oid::kText, -1},
                          {0, "aggregateid", pg_oid::kBytea, -1},
                          {0, "payload", pg_oid::kBytea, -1}});
    const auto record = fixture.route({text("\\x00ff10"), text("Order"), text("\\x0a0B"), text("\\x6869")});
    BOOST_TEST(record.key.value() == std::string("\x0a\x0b", 2));
    BOOST_TEST(record.value.value() == "hi");
    BOOST_TEST(header_value(record, 0) == "AP8Q");
}

BOOST_AUTO_TEST_CASE(boolean_key_and_id_read_true_and_false) {
    TableFixture fixture({{0, "id", pg_oid::kBool, -1},
                          {0, "aggregatetype", pg_oid::kText, -1},
                          {0, "aggregateid", pg_oid::kBool, -1},
                          {0, "payload", pg_oid::kText, -1}});
    const auto record = fixture.route({text("t"), text("Flag"), text("f"), text("x")});
    BOOST_TEST(record.key.value() == "false");
    BOOST_TEST(header_value(record, 0) == "true");
}

BOOST_AUTO_TEST_CASE(unroutable_rows_are_invalid_rows_naming_table_column_lsn_and_cause) {
    config::OutboxSettings settings;
    settings.route_topic_replacement = "bad topic ${routedByValue}";
    TableFixture fixture(debezium_columns(), settings);
    const auto null_route = invalid_row([&] { fixture.route({text("i"), null(), text("k"), text("t"), text("{}")}); });
    const std::string message = null_route.what();
    BOOST_TEST(contains(message, "outbox table public.outbox"));
    BOOST_TEST(contains(message, "column \"aggregatetype\" (outbox.route.by.field)"));
    BOOST_TEST(contains(message, "0/16B3748"));
    BOOST_TEST(contains(message, "NULL"));
    BOOST_TEST(null_route.source == "public.outbox");
    BOOST_TEST(null_route.key.value() == "k");
    BOOST_TEST(null_route.value.value() == "{}");
    BOOST_TEST(null_route.id.value() == "i");

    const auto illegal = invalid_row([&] { fixture.route(order_row()); });
    BOOST_TEST(contains(illegal.what(), "topic \"bad topic Order\" is not a legal Kafka topic name"));
}

BOOST_AUTO_TEST_CASE(the_regex_without_a_match_routes_to_the_raw_value) {
    config::OutboxSettings settings;
    settings.route_topic_regex = "(?<kind>[a-z]+)";
    settings.route_topic_replacement = "lower.${kind}";
    TableFixture fixture(debezium_columns(), settings);
    BOOST_TEST(fixture.route({text("1"), text("order"), text("k"), text("t"), text("{}")}).topic == "lower.order");
    BOOST_TEST(fixture.route({text("2"), text("Order"), text("k"), text("t"), text("{}")}).topic == "Order");
}

BOOST_AUTO_TEST_CASE(header_placements_follow_id_in_config_order_with_aliases) {
    config::OutboxSettings settings;
    settings.additional_fields = {
        {"type", config::Placement::header, "eventType"}, {"aggregateid", config::Placement::header, "aggregateid"},
        {"flag", config::Placement::header, "flag"},      {"blob", config::Placement::header, "blob"},
        {"note", config::Placement::header, "note"},      {"type", config::Placement::header, "eventType"}};
    auto columns = debezium_columns();
    columns.push_back({0, "flag", pg_oid::kBool, -1});
    columns.push_back({0, "blob", pg_oid::kBytea, -1});
    columns.push_back({0, "note", pg_oid::kText, -1});
    TableFixture fixture(columns, settings);
    auto row = order_row();
    row.insert(row.end(), {text("f"), text("\\x666f6f"), null()});
    const auto record = fixture.route(row);
    BOOST_REQUIRE(record.headers.size() == 7u);
    BOOST_TEST(record.headers[0].name == "id");
    BOOST_TEST(record.headers[1].name == "eventType");
    BOOST_TEST(header_value(record, 1) == "OrderCreated");
    BOOST_TEST(record.headers[2].name == "aggregateid");
    BOOST_TEST(header_value(record, 2) == "1001");
    BOOST_TEST(header_value(record, 3) == "false");
    BOOST_TEST(header_value(record, 4) == "Zm9v");
    BOOST_TEST(record.headers[5].name == "note");
    BOOST_TEST(!record.headers[5].value.has_value());                       // NULL: a header with a null value
    BOOST_TEST(record.headers[6].name == "eventType");                      // added again, never replaced
    BOOST_TEST(record.value.value() == R"({"id": 1, "customerId": 123})");  // headers only: value untouched
}

BOOST_AUTO_TEST_CASE(envelope_placements_make_a_typed_json_value_in_config_order) {
    config::OutboxSettings settings;
    settings.additional_fields = {
        {"type", config::Placement::envelope, "eventType"}, {"amount", config::Placement::envelope, "amount"},
        {"count", config::Placement::envelope, "n"},        {"done", config::Placement::envelope, "done"},
        {"ratio", config::Placement::envelope, "ratio"},    {"note", config::Placement::envelope, "note"},
        {"blob", config::Placement::envelope, "blob"},      {"meta", config::Placement::envelope, "meta"},
        {"type", config::Placement::header, "eventType"}};
    auto columns = debezium_columns();
    columns.insert(columns.end(), {{0, "amount", pg_oid::kNumeric, -1},
                                   {0, "count", pg_oid::kInt8, -1},
                                   {0, "done", pg_oid::kBool, -1},
                                   {0, "ratio", pg_oid::kFloat8, -1},
                                   {0, "note", pg_oid::kText, -1},
                                   {0, "blob", pg_oid::kBytea, -1},
                                   {0, "meta", pg_oid::kJsonb, -1}});
    TableFixture fixture(columns, settings);
    auto row = order_row();
    row.insert(row.end(),
               {text("12.50"), text("-3"), text("t"), text("NaN"), null(), text("\\x00"), text(R"({"a": "b\"c"})")});
    const auto record = fixture.route(row);
    BOOST_TEST(record.value.value() ==
               R"({"payload":"{\"id\": 1, \"customerId\": 123}","eventType":"OrderCreated",)"
               R"("amount":{"scale":1,"value":"fQ=="},"n":-3,)"
               R"("done":true,"ratio":"NaN","note":null,"blob":"AA==","meta":"{\"a\": \"b\\\"c\"}"})");
    BOOST_TEST(nlohmann::json::accept(*record.value));
    BOOST_TEST(record.headers.size() == 2u);  // the header placement still applies

    // A value Debezium's decimal mode cannot hold is the row's fault, named with its column.
    row[debezium_columns().size()] = text("NaN");
    const auto nan = invalid_row([&] { fixture.route(row); });
    BOOST_TEST(contains(nan.what(), "column \"amount\" (outbox.table.fields.additional.placement)"), nan.what());
    BOOST_TEST(contains(nan.what(), "NaN cannot be a decimal (decimal.handling.mode precise"), nan.what());
}

BOOST_AUTO_TEST_CASE(envelope_payload_of_each_type) {
    config::OutboxSettings settings;
    settings.additional_fields = {{"type", config::Placement::envelope, "type"}};
    TableFixture bytea_payload({{0, "id", pg_oid::kUuid, -1},
                                {0, "aggregatetype", pg_oid::kText, -1},
                                {0, "aggregateid", pg_oid::kText, -1},
                                {0, "type", pg_oid::kText, -1},
                                {0, "payload", pg_oid::kBytea, -1}},
                               settings);
    BOOST_TEST(bytea_payload.route({text(kUuid), text("A"), text("k"), text("T"), text("\\x6869")}).value.value() ==
               R"({"payload":"aGk=","type":"T"})");
    TableFixture jsonb_payload(debezium_columns(), settings);
    BOOST_TEST(jsonb_payload.route({text(kUuid), text("A"), text("k"), text("T"), null()}).value.value() ==
               R"({"payload":null,"type":"T"})");
}

BOOST_AUTO_TEST_CASE(partition_placement_sends_to_that_partition) {
    config::OutboxSettings settings;
    settings.additional_fields = {{"shard", config::Placement::partition, "ignored"}};
    auto columns = debezium_columns();
    columns.push_back({0, "shard", pg_oid::kInt2, -1});
    TableFixture fixture(columns, settings);
    auto row = order_row();
    row.push_back(text("2"));
    const auto record = fixture.route(row);
    BOOST_TEST(record.partition == 2);
    BOOST_TEST(record.headers.size() == 1u);
    row.back() = null();
    BOOST_TEST(fixture.route(row).partition == -1);
    row.back() = text("-1");
    BOOST_TEST(contains(invalid_row([&] { fixture.route(row); }).what(), "\"-1\" is not a partition number"));
    row.back() = text("2147483648");
    BOOST_TEST(contains(invalid_row([&] { fixture.route(row); }).what(),
                        "column \"shard\" (outbox.table.fields.additional.placement)"));
}

BOOST_AUTO_TEST_CASE(missing_additional_column_is_an_invalid_row_under_error_and_left_out_under_ignore) {
    config::OutboxSettings settings;
    settings.additional_fields = {{"tenant", config::Placement::envelope, "tenant"},
                                  {"type", config::Placement::envelope, "eventType"},
                                  {"trace", config::Placement::header, "trace"}};
    {
        TableFixture fixture(debezium_columns(), settings);
        const auto error = invalid_row([&] { fixture.route(order_row()); });
        BOOST_TEST(contains(
            error.what(), "outbox table public.outbox, column \"tenant\" (outbox.table.fields.additional.placement)"));
        BOOST_TEST(contains(error.what(), "table.field.additional.missing is error"));
        BOOST_TEST(contains(error.what(), "0/16B3748"));
    }
    settings.additional_missing = config::MissingFieldBehavior::ignore;
    TableFixture fixture(debezium_columns(), settings);
    const auto record = fixture.route(order_row());
    BOOST_TEST(record.value.value() == R"({"payload":"{\"id\": 1, \"customerId\": 123}","eventType":"OrderCreated"})");
    BOOST_TEST(record.headers.size() == 1u);
}

BOOST_AUTO_TEST_CASE(tombstones_for_null_and_blank_payloads_keep_topic_key_headers_and_timestamp) {
    config::OutboxSettings settings;
    settings.route_tombstone_on_empty_payload = true;
    settings.additional_fields = {{"type", config::Placement::header, "eventType"}};
    TableFixture text_payload({{0, "id", pg_oid::kUuid, -1},
                               {0, "aggregatetype", pg_oid::kText, -1},
                               {0, "aggregateid", pg_oid::kText, -1},
                               {0, "type", pg_oid::kText, -1},
                               {0, "payload", pg_oid::kText, -1}},
                              settings);
    for (const auto payload : {null(), text(""), text(" \t\n")}) {
        const auto record = text_payload.route({text(kUuid), text("Order"), text("1001"), text("Deleted"), payload});
        BOOST_TEST(!record.value.has_value());
        BOOST_TEST(record.topic == "outbox.event.Order");
        BOOST_TEST(record.key.value() == "1001");
        BOOST_TEST(header_value(record, 0) == kUuid);
        BOOST_TEST(header_value(record, 1) == "Deleted");
        BOOST_TEST(record.timestamp_ms == 1'700'000'000'123);
    }
    BOOST_TEST(text_payload.route({text(kUuid), text("Order"), text("1"), text("T"), text(" x ")}).value.value() ==
               " x ");

    settings.additional_fields = {{"type", config::Placement::envelope, "eventType"}};
    TableFixture envelope(debezium_columns(), settings);
    BOOST_TEST(!envelope.route({text(kUuid), text("Order"), text("1"), text("T"), null()}).value.has_value());

    settings.route_tombstone_on_empty_payload = false;
    TableFixture off(debezium_columns(), {});
    BOOST_TEST(!off.route({text(kUuid), text("Order"), text("1"), text("T"), null()}).value.has_value());
    TableFixture off_text({{0, "id", pg_oid::kUuid, -1},
                           {0, "aggregatetype", pg_oid::kText, -1},
                           {0, "aggregateid", pg_oid::kText, -1},
                           {0, "payload", pg_oid::kText, -1}});
    BOOST_TEST(off_text.route({text(kUuid), text("Order"), text("1"), text("")}).value.value() == "");
}

BOOST_AUTO_TEST_CASE(empty_bytea_payload_is_a_tombstone_too) {
    config::OutboxSettings settings;
    settings.route_tombstone_on_empty_payload = true;
    TableFixture fixture({{0, "id", pg_oid::kUuid, -1},
                          {0, "aggregatetype", pg_oid::kText, -1},
                          {0, "aggregateid", pg_oid::kText, -1},
                          {0, "payload", pg_oid::kBytea, -1}},
                         settings);
    BOOST_TEST(!fixture.route({text(kUuid), text("A"), text("1"), text("\\x")}).value.has_value());
    BOOST_TEST(fixture.route({text(kUuid), text("A"), text("1"), text("\\x20")}).value.value() == " ");
}

BOOST_AUTO_TEST_CASE(expanded_json_payload_in_headers_only_mode_is_compact_and_shaped) {
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    TableFixture fixture(debezium_columns(), settings);
    const auto record = fixture.route(order_row(R"({"a": {"b": null, "c": [1, null]}, "d": [], "e": "x"})"));
    BOOST_TEST(record.value.value() == R"({"a":{"c":[1,null]},"e":"x"})");
}

BOOST_AUTO_TEST_CASE(expanded_json_payload_in_envelope_mode_is_embedded) {
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    settings.json_null_behavior = config::JsonNullBehavior::optional_bytes;
    settings.additional_fields = {{"type", config::Placement::envelope, "eventType"}};
    TableFixture fixture(debezium_columns(), settings);
    const auto record = fixture.route(order_row(R"({"id": 1, "gone": null})"));
    BOOST_TEST(record.value.value() == R"({"payload":{"id":1,"gone":null},"eventType":"OrderCreated"})");
}

BOOST_AUTO_TEST_CASE(payload_that_cannot_be_expanded_stays_as_it_was_with_a_warning) {
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    auto columns = debezium_columns();
    columns[4].type_oid = pg_oid::kText;
    TableFixture headers_only(columns, settings);
    settings.additional_fields = {{"type", config::Placement::envelope, "t"}};
    TableFixture envelope(columns, settings);
    StderrCapture log;
    BOOST_TEST(headers_only.route(order_row("{not json")).value.value() == "{not json");
    BOOST_TEST(envelope.route(order_row("42")).value.value() == R"({"payload":"42","t":"OrderCreated"})");
    const std::string warnings = log.text();
    BOOST_TEST(contains(warnings, "WARN"));
    BOOST_TEST(
        contains(warnings,
                 "outbox table public.outbox, transaction committing at LSN 0/16B3748: "
                 "table.expand.json.payload: column \"payload\" is kept as it was because it is not valid JSON"));
    BOOST_TEST(contains(warnings, "it does not start with { or ["));
}

BOOST_AUTO_TEST_CASE(timestamp_column_of_each_accepted_type_sets_the_record_timestamp) {
    const auto fixture_for = [](std::uint32_t oid) {
        config::OutboxSettings settings;
        settings.field_event_timestamp = "at";
        auto columns = debezium_columns();
        columns.push_back({0, "at", oid, -1});
        return std::make_unique<TableFixture>(columns, settings);
    };
    const auto with = [](std::string_view at) {
        auto row = order_row();
        row.push_back(at.empty() ? null() : text(at));
        return row;
    };
    auto timestamp = fixture_for(pg_oid::kTimestamp);
    BOOST_TEST(timestamp->route(with("2024-01-02 03:04:05.123456")).timestamp_ms == 1'704'164'645'123);
    auto timestamptz = fixture_for(pg_oid::kTimestamptz);
    BOOST_TEST(timestamptz->route(with("2024-01-02 03:04:05.5+00")).timestamp_ms == 1'704'164'645'500);
    BOOST_TEST(timestamptz->route(with("2024-01-02 08:34:05+05:30")).timestamp_ms == 1'704'164'645'000);
    BOOST_TEST(timestamptz->route(with("")).timestamp_ms == 1'700'000'000'123);  // NULL: the commit time
    auto epoch = fixture_for(pg_oid::kInt8);
    BOOST_TEST(epoch->route(with("1704164645123")).timestamp_ms == 1'704'164'645'123);

    const auto bad = invalid_row([&] { timestamptz->route(with("infinity")); });
    BOOST_TEST(contains(bad.what(), "column \"at\" (outbox.table.field.event.timestamp)"));
    BOOST_TEST(contains(bad.what(), "\"infinity\" is not a timestamp"));
    BOOST_TEST(contains(invalid_row([&] { epoch->route(with("-5")); }).what(), "before 1969-12-31T23:59:59.999Z"));
    // Truncated toward zero as Debezium does; -1 is Kafka's "none", which Connect leaves to the
    // producer's clock, as librdkafka does for 0.
    BOOST_TEST(timestamp->route(with("1969-12-31 23:59:59.9995")).timestamp_ms == 0);
    BOOST_TEST(timestamp->route(with("1969-12-31 23:59:59.9985")).timestamp_ms == 0);
    BOOST_TEST(timestamp->route(with("1970-01-01 00:00:00.0015")).timestamp_ms == 1);
    BOOST_TEST(epoch->route(with("-1")).timestamp_ms == 0);
    BOOST_TEST(contains(invalid_row([&] { timestamp->route(with("1969-12-31 23:59:59.998")); }).what(),
                        "before 1969-12-31T23:59:59.999Z"));
}

// The INSERT of a primary-key UPDATE leaves out unchanged values stored out of line (TOAST):
// Debezium's placeholder for the column's type, or an invalid row where it has none the router writes.
BOOST_AUTO_TEST_CASE(unchanged_toasted_values_are_debeziums_placeholder) {
    auto columns = debezium_columns();
    columns.push_back({0, "blob", pg_oid::kBytea, -1});
    columns.push_back({0, "amount", pg_oid::kNumeric, -1});
    config::OutboxSettings settings;
    settings.additional_fields = {{"type", config::Placement::header, "type"}, {"blob", config::Placement::header, "blob"}};
    const pgoutput::ColumnValue unchanged{pgoutput::ValueKind::unchanged_toast, {}};
    const auto row = [&](pgoutput::ColumnValue payload, pgoutput::ColumnValue blob, pgoutput::ColumnValue amount) {
        return std::vector<pgoutput::ColumnValue>{text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k"),
                                                  unchanged, payload, blob, amount};
    };
    const auto header = [](const OutboxRecord& r, std::string_view name) -> std::string {
        for (const auto& [n, v] : r.headers)
            if (n == name) return v ? std::string(*v) : "<null>";
        return "<none>";
    };
    TableFixture bytes(columns, settings);
    const auto record = bytes.route(row(unchanged, unchanged, null()));
    BOOST_TEST(record.value.value() == "__debezium_unavailable_value");
    BOOST_TEST(header(record, "type") == "__debezium_unavailable_value");
    BOOST_TEST(header(record, "blob") == "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==");  // the placeholder's bytes
    config::RecordFormat base64;
    base64.modes.binary = config::BinaryHandlingMode::base64;
    base64.modes.unavailable_placeholder = "n/a";
    TableFixture in_base64(columns, settings, base64);
    const auto other = in_base64.route(row(unchanged, unchanged, null()));
    BOOST_TEST(other.value.value() == "n/a");
    BOOST_TEST(header(other, "blob") == "<null>");  // Debezium's Base64 converter finds no bytes
    settings.additional_fields.push_back({"amount", config::Placement::header, "amount"});
    TableFixture numeric(columns, settings);
    BOOST_TEST(contains(invalid_row([&] { numeric.route(row(text("{}"), null(), unchanged)); }).what(),
                        "column \"amount\" (unavailable.value.placeholder)"));
}

// Arrays: Debezium's placeholder list for the array types it names, null for the others (its
// conversion fails, and event.converting.failure.handling.mode warn leaves the column null).
BOOST_AUTO_TEST_CASE(unchanged_toasted_arrays_are_debeziums_placeholder_list_or_null) {
    auto columns = debezium_columns();
    for (const auto& [name, oid] : std::vector<std::pair<const char*, std::uint32_t>>{
             {"texts", 1009}, {"ints", 1007}, {"shorts", 1005}, {"ids", 2951}})
        columns.push_back({0, name, oid, -1});
    config::OutboxSettings settings;
    for (const char* name : {"texts", "ints", "shorts", "ids"})
        settings.additional_fields.push_back({name, config::Placement::header, name});
    config::RecordFormat format;
    format.modes.unavailable_placeholder = "n/a";
    TableFixture fixture(columns, settings, format);
    const pgoutput::ColumnValue unchanged{pgoutput::ValueKind::unchanged_toast, {}};
    const auto record = fixture.route({text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k"), text("t"),
                                       text("{}"), unchanged, unchanged, unchanged, unchanged});
    std::map<std::string, std::string> headers;
    for (const auto& [name, value] : record.headers) headers[std::string(name)] = value ? std::string(*value) : "<null>";
    BOOST_TEST(headers["texts"] == R"(["n/a"])");
    BOOST_TEST(headers["ints"] == "[110,47,97]");
    BOOST_TEST(headers["shorts"] == "<null>");
    BOOST_TEST(headers["ids"] == R"(["274b6819-2b05-3e26-8f12-8ff63bfcd4a4"])");
}

BOOST_AUTO_TEST_CASE(route_by_value_of_a_non_text_type_is_used_as_text) {
    config::OutboxSettings settings;
    settings.route_by_field = "region";
    auto columns = debezium_columns();
    columns.push_back({0, "region", pg_oid::kInt4, -1});
    TableFixture fixture(columns, settings);
    auto row = order_row();
    row.push_back(text("7"));
    BOOST_TEST(fixture.route(row).topic == "outbox.event.7");
}

// Debezium's tracing column: the writer's W3C context becomes traceparent/tracestate headers,
// after the context headers and before id, as Debezium's OpenTelemetry integration places them.
BOOST_AUTO_TEST_CASE(the_tracing_span_context_column_becomes_w3c_trace_headers) {
    auto columns = debezium_columns();
    columns.push_back({0, "tracingspancontext", pg_oid::kVarchar, -1});
    TableFixture fixture(columns);
    const std::string parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const std::string stored = "#Tue Nov 25 10:00:00 UTC 2026\ntraceparent=" + parent + "\ntracestate=rojo=00f067aa0ba902b7\n";
    auto row = order_row();
    row.push_back(text(stored));
    const auto traced = fixture.route(row);
    BOOST_REQUIRE(traced.headers.size() == 3u);
    BOOST_TEST(traced.headers[0].name == "traceparent");
    BOOST_TEST(traced.headers[0].value.value() == parent);
    BOOST_TEST(traced.headers[1].name == "tracestate");
    BOOST_TEST(traced.headers[1].value.value() == "rojo=00f067aa0ba902b7");
    BOOST_TEST(traced.headers[2].name == "id");

    // NULL, or no valid traceparent (logged): the event goes on without trace headers.
    row.back() = null();
    BOOST_TEST(fixture.route(row).headers.size() == 1u);
    row.back() = text("traceparent=garbage");
    BOOST_TEST(fixture.route(row).headers.size() == 1u);

    // tracing.span.context.field names another column.
    config::OutboxSettings settings;
    settings.tracing_span_context_field = "trace";
    columns.back().name = "trace";
    TableFixture renamed(columns, settings);
    const std::string bare = "traceparent=" + parent;
    row.back() = text(bare);
    const auto renamed_record = renamed.route(row);
    BOOST_REQUIRE(renamed_record.headers.size() == 2u);
    BOOST_TEST(renamed_record.headers[0].value.value() == parent);
}

// header.converter JsonConverter (Debezium Server's json header format, without schemas): every
// header a JSON value, the router's own strings included, NULL the JSON text null.
BOOST_AUTO_TEST_CASE(json_header_converter_writes_every_header_as_json) {
    config::OutboxSettings settings;
    settings.additional_fields = {{"qty", config::Placement::header, "qty"}, {"note", config::Placement::header, "note"}};
    config::RecordFormat format;
    format.header = config::Converter::json;
    format.context_headers = true;
    format.topic_prefix = "app";
    auto columns = debezium_columns();
    columns.insert(columns.end(), {{0, "qty", pg_oid::kInt4, -1}, {0, "note", pg_oid::kText, -1}});
    TableFixture fixture(columns, settings, format);
    auto row = order_row();
    row.insert(row.end(), {text("3"), null()});
    const auto record = fixture.route(row);
    BOOST_REQUIRE(record.headers.size() == 7u);
    BOOST_TEST(record.headers[0].value.value() == "\"app\"");
    BOOST_TEST(record.headers[1].value.value() == "\"0\"");
    BOOST_TEST(record.headers[4].name == "id");
    BOOST_TEST(record.headers[4].value.value().starts_with("\""));
    BOOST_TEST(record.headers[5].value.value() == "3");
    BOOST_TEST(record.headers[6].value.value() == "null");
}

// value.converter set to StringConverter writes a structure as Connect's Struct.toString(), as
// Debezium's StringConverter does; unset, as JSON.
BOOST_AUTO_TEST_CASE(an_explicit_string_converter_writes_structures_as_connect_struct_text) {
    config::OutboxSettings settings;
    settings.additional_fields = {{"type", config::Placement::envelope, "eventType"},
                                  {"qty", config::Placement::envelope, "qty"},
                                  {"note", config::Placement::envelope, "note"},
                                  {"blob", config::Placement::envelope, "blob"}};
    auto columns = debezium_columns();
    columns.insert(columns.end(), {{0, "qty", pg_oid::kInt4, -1}, {0, "note", pg_oid::kText, -1},
                                   {0, "blob", pg_oid::kBytea, -1}});
    config::RecordFormat explicit_string;
    explicit_string.value_struct_text = true;
    TableFixture connect_bytes(columns, settings, explicit_string);
    auto row = order_row();
    row.insert(row.end(), {text("3"), null(), text("\\x0102")});
    BOOST_TEST(connect_bytes.route(row).value.value() ==
               R"(Struct{payload={"id": 1, "customerId": 123},eventType=OrderCreated,qty=3,)"
               "blob=java.nio.HeapByteBuffer[pos=0 lim=2 cap=2]}");
    TableFixture json(columns, settings);
    BOOST_TEST(json.route(row).value.value() ==
               R"({"payload":"{\"id\": 1, \"customerId\": 123}","eventType":"OrderCreated","qty":3,"note":null,)"
               R"("blob":"AQI="})");

    config::OutboxSettings expand;
    expand.expand_json_payload = true;
    TableFixture expanded(debezium_columns(), expand, explicit_string);
    const std::string payload = R"({"a": 1, "b": [1, 2], "c": {"d": "e", "n": null}, "f": 1.50, "e": []})";
    auto plain = order_row();
    plain.back() = text(payload);
    BOOST_TEST(expanded.route(plain).value.value() == "Struct{a=1,b=[1, 2],c=Struct{d=e},f=1.5}");
    // What Debezium infers no schema for (an array mixing types) it keeps as the column's text, and
    // so does the router under StringConverter; JSON without schemas expands it.
    const std::string mixed = R"({"a": [1, "two", true], "b": [{"x": 1}, {"x": "s"}]})";
    plain.back() = text(mixed);
    BOOST_TEST(expanded.route(plain).value.value() == mixed);
    TableFixture expanded_json(debezium_columns(), expand);
    BOOST_TEST(expanded_json.route(plain).value.value() == R"({"a":[1,"two",true],"b":[{"x":1},{"x":"s"}]})");
}
