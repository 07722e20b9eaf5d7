#define BOOST_TEST_MODULE router_config
#include <boost/test/unit_test.hpp>
#include <initializer_list>

#include "outbox/config/config.hpp"
#include "outbox/util/errors.hpp"
#include "router_test_support.hpp"

using namespace outbox;
using namespace outbox::config;
using outbox::router::test::contains;
using outbox::router::test::StderrCapture;

namespace {

// A file whose outbox section is `lines`; the outbox: key is on line 5, so lines[i] is on line 6 + i.
std::string with_outbox(std::initializer_list<std::string> lines) {
    std::string text =
        "postgres:\n  conninfo: dbname=app\n  table.include.list: public.outbox, inventory.outbox\n"
        "kafka: {bootstrap.servers: \"k:9092\"}\noutbox:\n";
    for (const auto& line : lines) text += "  " + line + "\n";
    return text;
}

OutboxSettings outbox_of(std::initializer_list<std::string> lines) {
    return parse_config(with_outbox(lines), "router.yaml").outbox;
}

std::string error_of(std::initializer_list<std::string> lines) {
    try {
        parse_config(with_outbox(lines), "router.yaml");
    } catch (const ConfigError& e) {
        return e.what();
    }
    BOOST_FAIL("expected ConfigError");
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(defaults_are_debeziums) {
    const OutboxSettings o = outbox_of({"route.by.field: aggregatetype"});
    BOOST_TEST(!o.route_tombstone_on_empty_payload);
    BOOST_TEST(o.field_event_timestamp.empty());
    BOOST_TEST(o.additional_fields.empty());
    BOOST_TEST((o.additional_missing == MissingFieldBehavior::error));
    BOOST_TEST((o.op_invalid_behavior == InvalidOpBehavior::warn));
    BOOST_TEST(!o.expand_json_payload);
    BOOST_TEST((o.json_null_behavior == JsonNullBehavior::ignore));
    BOOST_TEST((o.json_empty_array_behavior == JsonEmptyArrayBehavior::ignore));
    BOOST_TEST(o.message_prefixes.empty());
    BOOST_TEST(o.table_overrides.empty());
}

BOOST_AUTO_TEST_CASE(every_option_is_read) {
    const OutboxSettings o = outbox_of({
        "route.tombstone.on.empty.payload: TRUE",
        "table.field.event.timestamp: created_at",
        "table.fields.additional.placement: \"type:header:eventType, version:envelope\"",
        "table.field.additional.missing: Ignore",
        "table.op.invalid.behavior: fatal",
        "table.expand.json.payload: true",
        "table.json.payload.null.behavior: optional_bytes",
        "table.json.payload.empty.array.behavior: optional_string",
        "message.prefix.include.list: \"outbox, billing \"",
    });
    BOOST_TEST(o.route_tombstone_on_empty_payload);
    BOOST_TEST(o.field_event_timestamp == "created_at");
    BOOST_REQUIRE(o.additional_fields.size() == 2u);
    BOOST_TEST((o.additional_fields[0] == AdditionalField{"type", Placement::header, "eventType"}));
    BOOST_TEST((o.additional_fields[1] == AdditionalField{"version", Placement::envelope, "version"}));
    BOOST_TEST((o.additional_missing == MissingFieldBehavior::ignore));
    BOOST_TEST((o.op_invalid_behavior == InvalidOpBehavior::fatal));
    BOOST_TEST(o.expand_json_payload);
    BOOST_TEST((o.json_null_behavior == JsonNullBehavior::optional_bytes));
    BOOST_TEST((o.json_empty_array_behavior == JsonEmptyArrayBehavior::optional_string));
    BOOST_TEST(o.message_prefixes == (std::vector<std::string>{"outbox", "billing"}));
}

BOOST_AUTO_TEST_CASE(placements_may_be_a_yaml_sequence) {
    const OutboxSettings o =
        outbox_of({"table.fields.additional.placement:", "    - type:header:eventType", "    - shard:partition"});
    BOOST_REQUIRE(o.additional_fields.size() == 2u);
    BOOST_TEST((o.additional_fields[1] == AdditionalField{"shard", Placement::partition, "shard"}));
}

BOOST_AUTO_TEST_CASE(pre_3_6_error_on_missing_is_an_alias_and_conflicts_with_the_new_key) {
    BOOST_TEST((outbox_of({"table.fields.additional.error.on.missing: false"}).additional_missing ==
                MissingFieldBehavior::ignore));
    BOOST_TEST((outbox_of({"table.fields.additional.error.on.missing: true"}).additional_missing ==
                MissingFieldBehavior::error));
    BOOST_TEST(error_of({"table.field.additional.missing: ignore", "table.fields.additional.error.on.missing: true"}) ==
               "router.yaml:7: outbox.table.fields.additional.error.on.missing: conflicts with "
               "outbox.table.field.additional.missing (line 6); give only table.field.additional.missing");
}

BOOST_AUTO_TEST_CASE(bad_values_are_errors_with_file_and_line) {
    BOOST_TEST(error_of({"route.tombstone.on.empty.payload: yes"}) ==
               "router.yaml:6: outbox.route.tombstone.on.empty.payload: expected true or false, got \"yes\"");
    BOOST_TEST(error_of({"table.op.invalid.behavior: panic"}) ==
               "router.yaml:6: outbox.table.op.invalid.behavior: expected warn or error or fatal, got \"panic\"");
    BOOST_TEST(error_of({"table.field.additional.missing: skip"}) ==
               "router.yaml:6: outbox.table.field.additional.missing: expected error or ignore, got \"skip\"");
    BOOST_TEST(
        error_of({"table.json.payload.null.behavior: drop"}) ==
        "router.yaml:6: outbox.table.json.payload.null.behavior: expected ignore or optional_bytes, got \"drop\"");
    BOOST_TEST(error_of({"table.json.payload.empty.array.behavior: keep"}) ==
               "router.yaml:6: outbox.table.json.payload.empty.array.behavior: expected ignore or optional_string, got "
               "\"keep\"");
    BOOST_TEST(error_of({"table.expand.json.payload: 1"}) ==
               "router.yaml:6: outbox.table.expand.json.payload: expected true or false, got \"1\"");
    BOOST_TEST(error_of({"table.field.event.timestamp: \"\""}) ==
               "router.yaml:6: outbox.table.field.event.timestamp: must not be empty");
}

BOOST_AUTO_TEST_CASE(malformed_placements_are_config_errors_at_start) {
    BOOST_TEST(error_of({"route.by.field: kind", "table.fields.additional.placement: type"}) ==
               "router.yaml:7: outbox.table.fields.additional.placement: \"type\" is not column:placement or "
               "column:placement:alias");
    BOOST_TEST(error_of({"table.fields.additional.placement: \"\""}) ==
               "router.yaml:6: outbox.table.fields.additional.placement: must not be empty (leave the key out for no "
               "additional fields)");
    BOOST_TEST(contains(error_of({"table.fields.additional.placement: \"type:foo\""}), "unknown placement \"foo\""));
    BOOST_TEST(contains(error_of({"table.fields.additional.placement: \"a:header,,b:header\""}), "empty item"));
}

BOOST_AUTO_TEST_CASE(debezium_keys_without_effect_are_accepted_with_a_warning_naming_them) {
    StderrCapture log;
    const OutboxSettings o = outbox_of({"table.field.event.type: type", "table.field.event.schema.version: v",
                                        "tracing.span.context.field: trace_context",
                                        "tracing.with.context.field.only: false", "tracing.operation.name: read",
                                        "route.by.field: kind"});
    BOOST_TEST(o.route_by_field == "kind");
    BOOST_TEST(o.tracing_span_context_field == "trace_context");
    const std::string warnings = log.text();
    BOOST_TEST(contains(warnings,
                        "WARN  router.yaml:6: outbox.table.field.event.type is accepted for compatibility "
                        "with Debezium but has no effect"));
    BOOST_TEST(contains(warnings, "type:header:eventType"));
    BOOST_TEST(o.field_event_schema_version == "v");
    BOOST_TEST(!contains(warnings, "schema.version"));
    BOOST_TEST(!contains(warnings, "tracing.span.context.field"));
    BOOST_TEST(contains(warnings, "router.yaml:9: outbox.tracing.with.context.field.only false has no effect"));
    BOOST_TEST(contains(warnings, "router.yaml:10: outbox.tracing.operation.name is accepted"));
}

BOOST_AUTO_TEST_CASE(other_unknown_keys_are_errors_and_renamed_debezium_keys_say_so) {
    const std::string unknown = error_of({"route.topic.prefix: x"});
    BOOST_TEST(
        unknown.starts_with("router.yaml:6: outbox.route.topic.prefix: unknown key (expected one of: route.by.field,"));
    BOOST_TEST(contains(unknown, "message.prefix.include.list, message.key.columns, table.overrides;"));
    BOOST_TEST(error_of({"debezium.expand.json.payload: true"}) ==
               "router.yaml:6: outbox.debezium.expand.json.payload: Debezium renamed this option to "
               "table.expand.json.payload (and removed the old name in 2.0)");
    BOOST_TEST(
        contains(error_of({"debezium.op.invalid.behavior: warn"}), "renamed this option to table.op.invalid.behavior"));
}

BOOST_AUTO_TEST_CASE(message_prefix_list_empty_means_off_and_bad_items_are_errors) {
    BOOST_TEST(outbox_of({"message.prefix.include.list: \"\""}).message_prefixes.empty());
    BOOST_TEST(outbox_of({"message.prefix.include.list: [a, b]"}).message_prefixes ==
               (std::vector<std::string>{"a", "b"}));
    BOOST_TEST(error_of({"message.prefix.include.list: \"a,,b\""}) ==
               "router.yaml:6: outbox.message.prefix.include.list: empty prefix in the list");
    BOOST_TEST(error_of({"message.prefix.include.list: \"a, a\""}) ==
               "router.yaml:6: outbox.message.prefix.include.list: prefix \"a\" is listed more than once");
}

BOOST_AUTO_TEST_CASE(table_overrides_start_from_all_shared_keys_and_replace_theirs) {
    const OutboxSettings o = outbox_of({
        "table.overrides:",                                         // 6
        "    inventory.outbox:",                                    // 7
        "      route.topic.replacement: \"inv.${routedByValue}\"",  // 8
        "      table.fields.additional.placement: \"type:envelope\"",
        "      table.field.event.key: sku",
        "    outbox: ~",         // 11
        "route.by.field: kind",  // after the overrides, still inherited
        "table.op.invalid.behavior: error",
        "message.prefix.include.list: outbox",
    });
    BOOST_REQUIRE(o.table_overrides.size() == 2u);
    const auto& inventory = o.table_overrides[0];
    BOOST_TEST(inventory.table.qualified() == "inventory.outbox");
    BOOST_TEST(inventory.location.describe() == "router.yaml:7");
    BOOST_TEST(inventory.settings.route_by_field == "kind");
    BOOST_TEST((inventory.settings.op_invalid_behavior == InvalidOpBehavior::error));
    BOOST_TEST(inventory.settings.route_topic_replacement == "inv.${routedByValue}");
    BOOST_TEST(inventory.settings.route_topic_replacement_location.describe() == "router.yaml:8");
    BOOST_TEST(inventory.settings.field_event_key == "sku");
    BOOST_TEST(inventory.settings.additional_fields.size() == 1u);
    BOOST_TEST(inventory.settings.message_prefixes.empty());
    BOOST_TEST(o.table_overrides[1].table.qualified() == "public.outbox");
    BOOST_TEST(o.table_overrides[1].settings.route_by_field == "kind");

    BOOST_TEST(&o.for_table({"inventory", "outbox"}) == &inventory.settings);
    BOOST_TEST(&o.for_table({"other", "outbox"}) == &o);
    BOOST_TEST(o.field_event_key == "aggregateid");
    BOOST_TEST(o.additional_fields.empty());
}

BOOST_AUTO_TEST_CASE(table_overrides_errors) {
    BOOST_TEST(error_of({"table.overrides:", "    outbox: {}", "    public.outbox: {}"}) ==
               "router.yaml:8: outbox.table.overrides: table public.outbox is given twice (first at line 7)");
    BOOST_TEST(error_of({"table.overrides:", "    outbox:", "      message.prefix.include.list: x"}) ==
               "router.yaml:8: outbox.table.overrides.outbox.message.prefix.include.list: applies to the whole outbox "
               "section and cannot be set per table");
    BOOST_TEST(error_of({"table.overrides:", "    outbox:", "      route.by.feld: x"})
                   .starts_with("router.yaml:8: outbox.table.overrides.outbox.route.by.feld: unknown key"));
    BOOST_TEST(error_of({"table.overrides:", "    outbox: 5"}) ==
               "router.yaml:7: outbox.table.overrides.outbox: expected a block of outbox options");
    BOOST_TEST(error_of({"table.overrides: [a]"}) ==
               "router.yaml:6: outbox.table.overrides: expected a mapping of schema.table to a block of options");
    BOOST_TEST(contains(error_of({"table.overrides:", "    a.b.c: {}"}), "\"a.b.c\" is not a table name"));
}
