#define BOOST_TEST_MODULE config
#include <boost/test/unit_test.hpp>

#include "outbox/config/config.hpp"
#include "outbox/util/errors.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <unistd.h>

using namespace outbox::config;

namespace {

// Builds YAML from one string per line, so line N of the file is element N-1 of the list.
std::string yaml(std::initializer_list<std::string> lines) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
}

Config parse(const std::string& text) {
    return parse_config(text, "router.yaml");
}

std::string error_of(const std::string& text, const std::string& file_name = "router.yaml") {
    try {
        parse_config(text, file_name);
    } catch (const outbox::ConfigError& e) {
        return e.what();
    }
    BOOST_FAIL("expected ConfigError for:\n" + text);
    return {};
}

// The smallest valid file, extended by a test with extra lines under postgres.
std::string minimal_with_postgres(const std::string& extra_line) {
    return yaml({"postgres:", "  conninfo: dbname=app", extra_line, "kafka:", "  bootstrap.servers: k:9092"});
}

}  // namespace

BOOST_AUTO_TEST_CASE(location_and_table_name_formatting) {
    BOOST_TEST((Location{"router.yaml", 12}.describe()) == "router.yaml:12");
    BOOST_TEST((Location{"router.yaml", 0}.describe()) == "router.yaml");
    BOOST_TEST((TableName{"app", "outbox"}.qualified()) == "app.outbox");
}

BOOST_AUTO_TEST_CASE(minimal_file_gets_defaults) {
    const Config c = parse(yaml({"postgres:", "  conninfo: dbname=app", "kafka:", "  bootstrap.servers: k:9092"}));
    BOOST_TEST(c.source_file == "router.yaml");
    BOOST_TEST(c.postgres.conninfo == "dbname=app");
    BOOST_TEST(c.postgres.conninfo_location.describe() == "router.yaml:2");
    BOOST_TEST(c.postgres.slot_name == "outbox_router");
    BOOST_TEST(c.postgres.publication_name == "outbox_router");
    BOOST_TEST((c.postgres.publication_autocreate == PublicationAutocreate::filtered));
    BOOST_REQUIRE(c.postgres.tables.size() == 1u);
    BOOST_TEST(c.postgres.tables[0].qualified() == "public.outbox");
    BOOST_TEST(c.postgres.status_update_interval_ms == 1000);
    BOOST_TEST(c.outbox.route_by_field == "aggregatetype");
    BOOST_TEST(c.outbox.route_topic_regex == "(?<routedByValue>.*)");
    BOOST_TEST(c.outbox.route_topic_replacement == "outbox.event.${routedByValue}");
    BOOST_TEST(c.outbox.field_event_id == "id");
    BOOST_TEST(c.outbox.field_event_key == "aggregateid");
    BOOST_TEST(c.outbox.field_event_payload == "payload");
    BOOST_TEST(c.outbox.route_topic_regex_location.line == 0);
    BOOST_REQUIRE(c.kafka.properties.size() == 1u);
    BOOST_TEST(c.kafka.properties[0].name == "bootstrap.servers");
    BOOST_TEST(c.kafka.properties[0].value == "k:9092");
    BOOST_TEST(c.kafka.properties[0].location.describe() == "router.yaml:4");
    BOOST_TEST(c.kafka.embedded_brokers == 0);
    BOOST_TEST(c.shutdown_timeout_ms == 30000);
}

BOOST_AUTO_TEST_CASE(every_key_set) {
    const Config c = parse(yaml({
        "postgres:",                                         // 1
        "  conninfo: \"host=db dbname=app\"",                // 2
        "  slot.name: my_slot_2",                            // 3
        "  publication.name: MyPub",                         // 4
        "  publication.autocreate.mode: disabled",           // 5
        "  table.include.list: app.events",                  // 6
        "  status.update.interval.ms: 250",                  // 7
        "outbox:",                                           // 8
        "  route.by.field: kind",                            // 9
        "  route.topic.regex: \"(?<routedByValue>[a-z]+)\"",  // 10
        "  route.topic.replacement: \"t.${routedByValue}\"",  // 11
        "  table.field.event.id: event_id",                  // 12
        "  table.field.event.key: event_key",                // 13
        "  table.field.event.payload: body",                 // 14
        "kafka:",                                            // 15
        "  bootstrap.servers: \"a:1,b:2\"",                  // 16
        "  embedded.brokers: 3",                             // 17
        "shutdown.timeout.ms: 5000",                         // 18
    }));
    BOOST_TEST(c.postgres.conninfo == "host=db dbname=app");
    BOOST_TEST(c.postgres.slot_name == "my_slot_2");
    BOOST_TEST(c.postgres.publication_name == "MyPub");
    BOOST_TEST((c.postgres.publication_autocreate == PublicationAutocreate::disabled));
    BOOST_TEST((c.postgres.tables == std::vector<TableName>{{"app", "events"}}));
    BOOST_TEST(c.postgres.status_update_interval_ms == 250);
    BOOST_TEST(c.outbox.route_by_field == "kind");
    BOOST_TEST(c.outbox.route_topic_regex == "(?<routedByValue>[a-z]+)");
    BOOST_TEST(c.outbox.route_topic_regex_location.describe() == "router.yaml:10");
    BOOST_TEST(c.outbox.route_topic_replacement == "t.${routedByValue}");
    BOOST_TEST(c.outbox.field_event_id == "event_id");
    BOOST_TEST(c.outbox.field_event_key == "event_key");
    BOOST_TEST(c.outbox.field_event_payload == "body");
    BOOST_REQUIRE(c.kafka.properties.size() == 1u);
    BOOST_TEST(c.kafka.properties[0].value == "a:1,b:2");
    BOOST_TEST(c.kafka.embedded_brokers == 3);
    BOOST_TEST(c.shutdown_timeout_ms == 5000);
}

BOOST_AUTO_TEST_CASE(table_list_as_comma_string) {
    const Config c = parse(minimal_with_postgres("  table.include.list: \" app.outbox , outbox,inventory.events \""));
    const std::vector<TableName> expected{{"app", "outbox"}, {"public", "outbox"}, {"inventory", "events"}};
    BOOST_TEST((c.postgres.tables == expected));
}

BOOST_AUTO_TEST_CASE(table_list_as_yaml_sequence) {
    const Config c = parse(yaml({"postgres:", "  conninfo: dbname=app", "  table.include.list:", "    - orders",
                                 "    - app.outbox", "kafka:", "  bootstrap.servers: k:9092"}));
    const std::vector<TableName> expected{{"public", "orders"}, {"app", "outbox"}};
    BOOST_TEST((c.postgres.tables == expected));
}

BOOST_AUTO_TEST_CASE(table_list_errors) {
    BOOST_TEST(error_of(minimal_with_postgres("  table.include.list: \"a.b,,c\"")) ==
               "router.yaml:3: postgres.table.include.list: empty table name in the list");
    BOOST_TEST(error_of(minimal_with_postgres("  table.include.list: \"a.b,\"")) ==
               "router.yaml:3: postgres.table.include.list: empty table name in the list");
    BOOST_TEST(error_of(minimal_with_postgres("  table.include.list: outbox, public.outbox")) ==
               "router.yaml:3: postgres.table.include.list: table public.outbox is listed more than once");
    BOOST_TEST(error_of(minimal_with_postgres("  table.include.list: a.b.c")) ==
               "router.yaml:3: postgres.table.include.list: \"a.b.c\" is not a table name (expected schema.table or table)");
    BOOST_TEST(error_of(minimal_with_postgres("  table.include.list: []")) ==
               "router.yaml:3: postgres.table.include.list: must name at least one table");
    // Errors inside a sequence point at the item's own line.
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "  table.include.list:", "    - a.t", "    - .t",
                              "kafka:", "  bootstrap.servers: k"})) ==
               "router.yaml:5: postgres.table.include.list: \".t\" is not a table name (expected schema.table or table)");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "  table.include.list:", "    - [a]",
                              "kafka:", "  bootstrap.servers: k"})) ==
               "router.yaml:4: postgres.table.include.list: expected a single value, got a sequence");
}

BOOST_AUTO_TEST_CASE(env_references_are_expanded) {
    BOOST_REQUIRE(setenv("OUTBOX_TEST_HOST", "db.internal", 1) == 0);
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PW", "p@ss ${env:OUTBOX_TEST_HOST}", 1) == 0);
    BOOST_REQUIRE(setenv("OUTBOX_TEST_BROKERS", "b1:9092", 1) == 0);
    const Config c = parse(yaml({
        "postgres:",
        "  conninfo: \"host=${env:OUTBOX_TEST_HOST} password=${env:OUTBOX_TEST_PW}\"",
        "outbox:",
        "  route.topic.replacement: \"${env:OUTBOX_TEST_HOST}.${routedByValue}.${other}\"",
        "kafka:",
        "  bootstrap.servers: ${env:OUTBOX_TEST_BROKERS}",
        "  sasl.password: \"x${env:OUTBOX_TEST_HOST}y\"",
    }));
    // The variable's value is inserted verbatim: the ${env:...} inside OUTBOX_TEST_PW stays as is,
    // and in conninfo the value is quoted so that libpq reads it whole.
    BOOST_TEST(c.postgres.conninfo == "host=db.internal password='p@ss ${env:OUTBOX_TEST_HOST}'");
    BOOST_TEST(c.outbox.route_topic_replacement == "db.internal.${routedByValue}.${other}");
    BOOST_REQUIRE(c.kafka.properties.size() == 2u);
    BOOST_TEST(c.kafka.properties[0].value == "b1:9092");
    BOOST_TEST(c.kafka.properties[1].value == "xdb.internaly");
}

BOOST_AUTO_TEST_CASE(env_reference_in_integer_value) {
    BOOST_REQUIRE(setenv("OUTBOX_TEST_INTERVAL", "750", 1) == 0);
    const Config c = parse(minimal_with_postgres("  status.update.interval.ms: ${env:OUTBOX_TEST_INTERVAL}"));
    BOOST_TEST(c.postgres.status_update_interval_ms == 750);
}

BOOST_AUTO_TEST_CASE(unset_env_variable_is_an_error) {
    BOOST_REQUIRE(unsetenv("OUTBOX_TEST_UNSET") == 0);
    BOOST_TEST(error_of(yaml({"# comment", "postgres:", "  conninfo: \"password=${env:OUTBOX_TEST_UNSET}\"",
                              "kafka:", "  bootstrap.servers: k"})) ==
               "router.yaml:3: environment variable OUTBOX_TEST_UNSET is not set (referenced by postgres.conninfo)");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k",
                              "  sasl.password: ${env:OUTBOX_TEST_UNSET}"})) ==
               "router.yaml:5: environment variable OUTBOX_TEST_UNSET is not set (referenced by kafka.sasl.password)");
}

BOOST_AUTO_TEST_CASE(malformed_env_references) {
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"${env:OOPS\"")) ==
               "router.yaml:3: postgres.slot.name: unterminated ${env:...} reference");
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"${env:}\"")) ==
               "router.yaml:3: postgres.slot.name: ${env:} names no variable");
}

namespace {

// A properties file in the temporary directory, removed at the end of the test.
struct PropertiesFile {
    explicit PropertiesFile(const std::string& text)
        : path((std::filesystem::temp_directory_path() /
                ("outbox-secrets-" + std::to_string(getpid()) + "-" + std::to_string(++count) + ".properties"))
                   .string()) {
        std::ofstream(path) << text;
    }
    ~PropertiesFile() { std::filesystem::remove(path); }
    std::string path;
    static inline int count = 0;
};

}  // namespace

// Kafka Connect's FileConfigProvider syntax, as migrating Debezium users have it.
BOOST_AUTO_TEST_CASE(file_references_are_read_from_properties_files) {
    const PropertiesFile secrets("# secrets\npg.password = s3cret ${env:HOME}\nkafka.password: k:pw\n"
                                 "repeated=old\nrepeated=new\nspaced\\ key=sp\n");
    const Config c = parse(yaml({
        "postgres:",
        "  conninfo: \"host=db password=${file:" + secrets.path + ":pg.password}\"",
        "outbox:",
        "  route.topic.replacement: \"${file:" + secrets.path + ":repeated}.${routedByValue}\"",
        "kafka:",
        "  bootstrap.servers: k:9092",
        "  sasl.password: \"${file:" + secrets.path + ":kafka.password}\"",
        "  sasl.username: \"${file:" + secrets.path + ":spaced key}\"",
    }));
    // The value is inserted verbatim, never expanded again.
    BOOST_TEST(c.postgres.conninfo == "host=db password='s3cret ${env:HOME}'");
    BOOST_TEST(c.outbox.route_topic_replacement == "new.${routedByValue}");
    BOOST_REQUIRE(c.kafka.properties.size() == 3u);
    BOOST_TEST(c.kafka.properties[1].value == "k:pw");
    BOOST_TEST(c.kafka.properties[2].value == "sp");
}

BOOST_AUTO_TEST_CASE(a_missing_file_or_key_names_the_line_the_file_and_the_key_but_no_value) {
    const PropertiesFile secrets("password=hunter2-file-secret\n");
    const std::string missing_key = error_of(minimal_with_postgres("  slot.name: \"${file:" + secrets.path + ":nope}\""));
    BOOST_TEST(missing_key == "router.yaml:3: postgres.slot.name: ${file:" + secrets.path + ":nope}: " + secrets.path +
                                  " has no key \"nope\"");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k",
                              "  sasl.password: ${file:/nonexistent-outbox/secrets.properties:pw}"})) ==
               "router.yaml:5: kafka.sasl.password: ${file:/nonexistent-outbox/secrets.properties:pw}: cannot read "
               "/nonexistent-outbox/secrets.properties: No such file or directory");
    const auto directory = std::filesystem::temp_directory_path().string();
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"${file:" + directory + ":pw}\"")) ==
               "router.yaml:3: postgres.slot.name: ${file:" + directory + ":pw}: " + directory + " is not a regular file");
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"${file:/dev/zero:pw}\"")) ==
               "router.yaml:3: postgres.slot.name: ${file:/dev/zero:pw}: /dev/zero is not a regular file");
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"${file:" + secrets.path + "}\"")) ==
               "router.yaml:3: postgres.slot.name: ${file:" + secrets.path +
                   "} names no file and key; write ${file:/path/to/file.properties:key}");
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"${file:" + secrets.path + ":password\"")) ==
               "router.yaml:3: postgres.slot.name: unterminated ${file:...} reference");
    // The file's other values appear in no message.
    BOOST_TEST(missing_key.find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(unknown_keys_name_their_line) {
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "sink: x"}), "name.yaml")
                   .starts_with("name.yaml:5: sink: unknown key (expected one of: postgres, outbox, kafka, shutdown.timeout.ms"));
    BOOST_TEST(error_of(minimal_with_postgres("  database.hostname: db"), "name.yaml").starts_with(
        "name.yaml:3: postgres.database.hostname: unknown key (expected one of: conninfo, slot.name,"));
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "outbox:",
                              "  route.by.field: t", "  route.topic.prefix: x"}),
                        "name.yaml")
                   .starts_with("name.yaml:7: outbox.route.topic.prefix: unknown key (expected one of: route.by.field,"));
}

BOOST_AUTO_TEST_CASE(bad_integers) {
    const std::string text = yaml({"# router", "postgres:", "  conninfo: x", "  slot.name: s", "  publication.name: p",
                                   "  table.include.list: t", "  status.update.interval.ms: fast", "kafka:",
                                   "  bootstrap.servers: k"});
    BOOST_TEST(error_of(text) ==
               "router.yaml:7: postgres.status.update.interval.ms: expected a positive integer, got \"fast\"");
    BOOST_TEST(error_of(minimal_with_postgres("  status.update.interval.ms: 10ms")) ==
               "router.yaml:3: postgres.status.update.interval.ms: expected a positive integer, got \"10ms\"");
    BOOST_TEST(error_of(minimal_with_postgres("  status.update.interval.ms: 0")) ==
               "router.yaml:3: postgres.status.update.interval.ms: expected a positive integer, got \"0\"");
    BOOST_TEST(error_of(minimal_with_postgres("  status.update.interval.ms: -5")) ==
               "router.yaml:3: postgres.status.update.interval.ms: expected a positive integer, got \"-5\"");
    BOOST_TEST(error_of(minimal_with_postgres("  status.update.interval.ms: \"\"")) ==
               "router.yaml:3: postgres.status.update.interval.ms: expected a positive integer, got \"\"");
    BOOST_TEST(error_of(minimal_with_postgres("  status.update.interval.ms: 99999999999")) ==
               "router.yaml:3: postgres.status.update.interval.ms: \"99999999999\" is out of range (at most 2147483647)");
    BOOST_TEST(error_of(minimal_with_postgres("shutdown.timeout.ms: 1.5")) ==
               "router.yaml:3: shutdown.timeout.ms: expected a positive integer, got \"1.5\"");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  embedded.brokers: -1"})) ==
               "router.yaml:4: kafka.embedded.brokers: expected a non-negative integer, got \"-1\"");
}

BOOST_AUTO_TEST_CASE(autocreate_mode_only_filtered_or_disabled) {
    BOOST_TEST(error_of(minimal_with_postgres("  publication.autocreate.mode: all_tables")) ==
               "router.yaml:3: postgres.publication.autocreate.mode: unsupported mode \"all_tables\"; only filtered and "
               "disabled are supported");
    BOOST_TEST(error_of(minimal_with_postgres("  publication.autocreate.mode: no_tables")).find(
                   "only filtered and disabled are supported") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(publish_via_partition_root_is_unset_true_or_false) {
    BOOST_TEST(!parse(minimal_with_postgres("")).postgres.publish_via_partition_root.has_value());
    BOOST_TEST((parse(minimal_with_postgres("  publish.via.partition.root: TRUE")).postgres.publish_via_partition_root == true));
    BOOST_TEST((parse(minimal_with_postgres("  publish.via.partition.root: false")).postgres.publish_via_partition_root == false));
    BOOST_TEST(error_of(minimal_with_postgres("  publish.via.partition.root: yes please")) ==
               "router.yaml:3: postgres.publish.via.partition.root: expected true or false, got \"yes please\"");
}

BOOST_AUTO_TEST_CASE(slot_name_rules) {
    const std::string rule =
        " is not a valid replication slot name (1 to 63 characters, only lowercase letters, digits and underscores)";
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: Outbox")) ==
               "router.yaml:3: postgres.slot.name: \"Outbox\"" + rule);
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: outbox-router")) ==
               "router.yaml:3: postgres.slot.name: \"outbox-router\"" + rule);
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: \"\"")) == "router.yaml:3: postgres.slot.name: \"\"" + rule);
    const std::string longest(63, 'a');
    BOOST_TEST(parse(minimal_with_postgres("  slot.name: " + longest)).postgres.slot_name == longest);
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: " + longest + "a")) ==
               "router.yaml:3: postgres.slot.name: \"" + longest + "a\"" + rule);
}

BOOST_AUTO_TEST_CASE(names_must_not_be_empty_or_too_long) {
    BOOST_TEST(error_of(minimal_with_postgres("  publication.name: \"\"")) ==
               "router.yaml:3: postgres.publication.name: must not be empty");
    const std::string too_long(64, 'p');
    BOOST_TEST(error_of(minimal_with_postgres("  publication.name: " + too_long)) ==
               "router.yaml:3: postgres.publication.name: \"" + too_long + "\" is longer than 63 bytes");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "outbox:",
                              "  table.field.event.key: \"\""})) ==
               "router.yaml:6: outbox.table.field.event.key: must not be empty");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: \"\""})) ==
               "router.yaml:4: kafka.bootstrap.servers: must not be empty");
}

BOOST_AUTO_TEST_CASE(non_scalar_values_are_rejected) {
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name: {a: b}")) ==
               "router.yaml:3: postgres.slot.name: expected a single value, got a mapping");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: [a, b]"})) ==
               "router.yaml:4: kafka.bootstrap.servers: expected a single value, got a sequence");
    BOOST_TEST(error_of(minimal_with_postgres("  slot.name:")) ==
               "router.yaml:3: postgres.slot.name: expected a single value, got no value");
    BOOST_TEST(error_of(yaml({"postgres: dbname=app", "kafka:", "  bootstrap.servers: k"})) ==
               "router.yaml:1: postgres: expected a mapping of settings, got a single value");
}

BOOST_AUTO_TEST_CASE(top_level_must_be_a_non_empty_mapping) {
    BOOST_TEST(error_of("") == "router.yaml: the configuration is empty");
    BOOST_TEST(error_of("# only a comment\n") == "router.yaml: the configuration is empty");
    BOOST_TEST(error_of(yaml({"- postgres", "- kafka"})) == "router.yaml:1: expected a mapping of sections at the top level");
}

BOOST_AUTO_TEST_CASE(duplicate_keys_are_rejected) {
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "  slot.name: a", "  slot.name: b", "kafka:",
                              "  bootstrap.servers: k"})) ==
               "router.yaml:4: postgres.slot.name: duplicate key (first given at line 3)");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "postgres:",
                              "  conninfo: y"})) == "router.yaml:5: postgres: duplicate key (first given at line 1)");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: a", "  bootstrap.servers: b"})) ==
               "router.yaml:5: kafka.bootstrap.servers: duplicate key (first given at line 4)");
}

BOOST_AUTO_TEST_CASE(yaml_syntax_error_has_a_line) {
    const std::string message = error_of(yaml({"postgres:", "  conninfo: x", "kafka: [", "  bootstrap.servers: k"}));
    BOOST_TEST(message.starts_with("router.yaml:"), message);
    BOOST_TEST(message.find("invalid YAML: ") != std::string::npos, message);
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", " bad: indent"})).starts_with("router.yaml:3: invalid YAML: "));
}

BOOST_AUTO_TEST_CASE(kafka_properties_pass_through_in_file_order) {
    const Config c = parse(yaml({
        "postgres:",                       // 1
        "  conninfo: x",                   // 2
        "kafka:",                          // 3
        "  linger.ms: 5",                  // 4
        "  embedded.brokers: 1",           // 5
        "  enable.idempotence: true",      // 6
        "  bootstrap.servers: b:9092",     // 7
        "  compression.type: \"lz4\"",     // 8
        "  client.id: ${routedByValue}",   // 9
    }));
    BOOST_TEST(c.kafka.embedded_brokers == 1);
    const std::vector<std::string> names{"linger.ms", "enable.idempotence", "bootstrap.servers", "compression.type",
                                         "client.id"};
    const std::vector<std::string> values{"5", "true", "b:9092", "lz4", "${routedByValue}"};
    const std::vector<int> lines{4, 6, 7, 8, 9};
    BOOST_REQUIRE(c.kafka.properties.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        BOOST_TEST(c.kafka.properties[i].name == names[i]);
        BOOST_TEST(c.kafka.properties[i].value == values[i]);
        BOOST_TEST(c.kafka.properties[i].location.line == lines[i]);
        BOOST_TEST(c.kafka.properties[i].location.file == "router.yaml");
    }
}

BOOST_AUTO_TEST_CASE(missing_conninfo) {
    BOOST_TEST(error_of(yaml({"kafka:", "  bootstrap.servers: k", "postgres:", "  slot.name: s"})) ==
               "router.yaml:3: postgres.conninfo is required");
    BOOST_TEST(error_of(yaml({"kafka:", "  bootstrap.servers: k"})) == "router.yaml: postgres.conninfo is required");
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: \"\"", "kafka:", "  bootstrap.servers: k"})) ==
               "router.yaml:2: postgres.conninfo: must not be empty");
}

BOOST_AUTO_TEST_CASE(missing_bootstrap_servers) {
    const std::string required = "kafka.bootstrap.servers is required (or kafka.embedded.brokers for demos and tests)";
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x"})) == "router.yaml: " + required);
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  linger.ms: 5"})) == "router.yaml:3: " + required);
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  embedded.brokers: 0"})) ==
               "router.yaml:3: " + required);
    const Config c = parse(yaml({"postgres:", "  conninfo: x", "kafka:", "  embedded.brokers: 2"}));
    BOOST_TEST(c.kafka.embedded_brokers == 2);
    BOOST_TEST(c.kafka.properties.empty());
}

BOOST_AUTO_TEST_CASE(load_config_on_missing_file) {
    try {
        load_config("/nonexistent-outbox-dir/router.yaml");
        BOOST_FAIL("expected ConfigError");
    } catch (const outbox::ConfigError& e) {
        BOOST_TEST(std::string(e.what()) == "/nonexistent-outbox-dir/router.yaml: cannot read: No such file or directory");
    }
}

BOOST_AUTO_TEST_CASE(load_config_reads_a_real_file) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("outbox-config-test-" + std::to_string(getpid()) + ".yaml");
    {
        std::ofstream out(path);
        out << yaml({"postgres:", "  conninfo: dbname=fromfile", "kafka:", "  bootstrap.servers: k", "bogus: 1"});
    }
    std::string message;
    try {
        load_config(path.string());
    } catch (const outbox::ConfigError& e) {
        message = e.what();
    }
    {
        std::ofstream out(path);
        out << yaml({"postgres:", "  conninfo: dbname=fromfile", "kafka:", "  bootstrap.servers: k"});
    }
    const Config c = load_config(path.string());
    std::filesystem::remove(path);

    BOOST_TEST(message.starts_with(path.string() + ":5: bogus: unknown key"), message);
    BOOST_TEST(c.source_file == path.string());
    BOOST_TEST(c.postgres.conninfo == "dbname=fromfile");
    BOOST_TEST(c.postgres.conninfo_location.describe() == path.string() + ":2");
}

BOOST_AUTO_TEST_CASE(fault_tolerance_settings) {
    const auto config = parse_config(yaml({"postgres:", "  conninfo: x", "  heartbeat.interval.ms: 5000",
                                           "  reconnect.backoff.max.ms: 2000", "kafka:", "  bootstrap.servers: k",
                                           "max.inflight.messages: 500", "max.inflight.bytes: 1048576",
                                           "errors.tolerance: all", "errors.deadletterqueue.topic.name: dlq"}),
                                     "router.yaml");
    BOOST_TEST(config.postgres.heartbeat_interval_ms == 5000);
    BOOST_TEST(config.postgres.heartbeat_action_query ==
               "SELECT pg_logical_emit_message(true, 'outbox-router-heartbeat', '')");
    BOOST_TEST(config.postgres.reconnect_backoff_max_ms == 2000);
    BOOST_TEST(config.max_inflight_messages == 500);
    BOOST_TEST(config.max_inflight_bytes == 1048576);
    BOOST_TEST((config.errors_tolerance == outbox::config::ErrorTolerance::all));
    BOOST_TEST(config.dead_letter_topic == "dlq");

    const auto defaults = parse_config(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k"}), "r.yaml");
    BOOST_TEST(defaults.max_inflight_messages == 100000);
    BOOST_TEST(defaults.max_inflight_bytes == 64L * 1024 * 1024);
    BOOST_TEST((defaults.errors_tolerance == outbox::config::ErrorTolerance::none));
    BOOST_TEST(defaults.postgres.heartbeat_interval_ms == 0);

    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "errors.tolerance: some"}),
                        "r.yaml") == "r.yaml:5: errors.tolerance: expected none or all, got \"some\"");
}

BOOST_AUTO_TEST_CASE(caught_up_lag_ms) {
    auto lag_of = [](const std::string& line) {
        return parse_config(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", line}), "r.yaml")
            .caught_up_lag_ms;
    };
    BOOST_TEST(lag_of("") == 20);
    BOOST_TEST(lag_of("caught.up.lag.ms: 250") == 250);
    BOOST_TEST(lag_of("caught.up.lag.ms: 0") == 0);
    BOOST_TEST(error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "caught.up.lag.ms: -1"}),
                        "r.yaml") == "r.yaml:5: caught.up.lag.ms: expected a non-negative integer, got \"-1\"");
}

BOOST_AUTO_TEST_CASE(metrics_and_log_sections) {
    const Config c = parse(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k",  // 1-4
                                 "metrics:", "  listen: \"127.0.0.1:9187\"",                          // 5-6
                                 "log:", "  level: debug", "  format: json", "  progress.interval.ms: 5000"}));
    BOOST_TEST(c.metrics.listen == "127.0.0.1:9187");
    BOOST_TEST(c.metrics.host == "127.0.0.1");
    BOOST_TEST(c.metrics.port == 9187);
    BOOST_TEST(c.metrics.listen_location.describe() == "router.yaml:6");
    BOOST_TEST((c.log.level == outbox::log::Level::debug));
    BOOST_TEST((c.log.format == outbox::log::Format::json));
    BOOST_TEST(c.log.progress_interval_ms == 5000);

    const Config v6 = parse(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "metrics:",
                                  "  listen: \"[::1]:9000\"", "log:", "  level: WARN"}));
    BOOST_TEST(v6.metrics.host == "::1");
    BOOST_TEST(v6.metrics.port == 9000);
    BOOST_TEST((v6.log.level == outbox::log::Level::warn));

    const Config named = parse(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "metrics:",
                                     "  listen: localhost:80"}));
    BOOST_TEST(named.metrics.host == "localhost");
    BOOST_TEST(named.metrics.port == 80);
}

BOOST_AUTO_TEST_CASE(metrics_off_and_log_defaults_when_absent) {
    const Config c = parse(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", "metrics:", "log:"}));
    BOOST_TEST(c.metrics.listen.empty());
    BOOST_TEST(c.metrics.port == 0);
    BOOST_TEST((c.log.level == outbox::log::Level::info));
    BOOST_TEST((c.log.format == outbox::log::Format::text));
    BOOST_TEST(c.log.progress_interval_ms == 30000);
}

BOOST_AUTO_TEST_CASE(metrics_and_log_errors_name_their_line) {
    const auto with = [](const std::string& section, const std::string& line) {
        return error_of(yaml({"postgres:", "  conninfo: x", "kafka:", "  bootstrap.servers: k", section, line}));
    };
    const std::string listen_hint = "metrics.listen: expected host:port (e.g. 127.0.0.1:9187 or [::1]:9187), got ";
    BOOST_TEST(with("metrics:", "  listen: 9187") == "router.yaml:6: " + listen_hint + "\"9187\"");
    BOOST_TEST(with("metrics:", "  listen: \":9187\"") == "router.yaml:6: " + listen_hint + "\":9187\"");
    BOOST_TEST(with("metrics:", "  listen: host:0") == "router.yaml:6: " + listen_hint + "\"host:0\"");
    BOOST_TEST(with("metrics:", "  listen: host:65536") == "router.yaml:6: " + listen_hint + "\"host:65536\"");
    BOOST_TEST(with("metrics:", "  listen: host:http") == "router.yaml:6: " + listen_hint + "\"host:http\"");
    BOOST_TEST(with("metrics:", "  listen: \"::1:9187\"") == "router.yaml:6: " + listen_hint + "\"::1:9187\"");
    BOOST_TEST(with("metrics:", "  listen: \"\"") == "router.yaml:6: metrics.listen: must not be empty");
    BOOST_TEST(with("metrics:", "  port: 9187").starts_with("router.yaml:6: metrics.port: unknown key (expected one of: listen)"));
    BOOST_TEST(with("log:", "  level: verbose") ==
               "router.yaml:6: log.level: expected debug or info or warn or error, got \"verbose\"");
    BOOST_TEST(with("log:", "  format: logfmt") == "router.yaml:6: log.format: expected text or json, got \"logfmt\"");
    BOOST_TEST(with("log:", "  progress.interval.ms: 0") ==
               "router.yaml:6: log.progress.interval.ms: expected a positive integer, got \"0\"");
    BOOST_TEST(with("log:", "  colour: yes").starts_with("router.yaml:6: log.colour: unknown key (expected one of: level, format"));
    BOOST_TEST(with("log: json", "").starts_with("router.yaml:5: log: expected a mapping of settings, got a single value"));
}

BOOST_AUTO_TEST_CASE(shipped_example_configs_load) {
    BOOST_REQUIRE(setenv("PGPASSWORD", "example", 1) == 0);
    BOOST_REQUIRE(setenv("OUTBOX_PGPASSWORD", "example", 1) == 0);
    BOOST_REQUIRE(setenv("OUTBOX_DEMO_PGPORT", "5432", 1) == 0);
    for (const char* name : {"router.yaml", "demo.yaml", "compose.yaml"}) {
        BOOST_TEST_CONTEXT(name) {
            const Config c = load_config(std::string(OUTBOX_SOURCE_DIR) + "/config/" + name);
            BOOST_TEST(!c.postgres.conninfo.empty());
        }
    }
    const Config compose = load_config(std::string(OUTBOX_SOURCE_DIR) + "/config/compose.yaml");
    BOOST_TEST(compose.metrics.host == "0.0.0.0");
    BOOST_TEST(compose.metrics.port == 9187);
    BOOST_TEST((compose.log.format == outbox::log::Format::json));
}

// Checks that span settings live here too, so --check refuses what the router would refuse.
BOOST_AUTO_TEST_CASE(dead_letter_and_offsets_topics_are_checked_with_their_line) {
    const std::string base = minimal_with_postgres("");
    BOOST_TEST(error_of(base + "errors.deadletterqueue.topic.name: dead.letters\n") ==
               "router.yaml:6: errors.deadletterqueue.topic.name needs errors.tolerance: all");
    BOOST_TEST(error_of(base + "errors.tolerance: all\nerrors.deadletterqueue.topic.name: \"dead letters\"\n") ==
               "router.yaml:7: errors.deadletterqueue.topic.name: \"dead letters\" is not a legal Kafka topic name");
    BOOST_TEST(error_of(base + "offsets.topic: \"..\"\n") ==
               "router.yaml:6: offsets.topic: \"..\" is not a legal Kafka topic name");
    BOOST_TEST(parse_config(base + "errors.tolerance: all\nerrors.deadletterqueue.topic.name: dead.letters\n", "r.yaml")
                   .dead_letter_topic == "dead.letters");
}

BOOST_AUTO_TEST_CASE(unavailable_value_placeholder_as_debezium_reads_it) {
    const std::string base = "postgres:\n  conninfo: dbname=app\nkafka:\n  bootstrap.servers: k:9092\n";
    BOOST_TEST(parse(base).format.modes.unavailable_placeholder == "__debezium_unavailable_value");
    BOOST_TEST(parse(base + "unavailable.value.placeholder: n/a\n").format.modes.unavailable_placeholder == "n/a");
    // "hex:" and hexadecimal digits are the placeholder's bytes.
    BOOST_TEST(parse(base + "unavailable.value.placeholder: 'hex:6e2f61'\n").format.modes.unavailable_placeholder == "n/a");
    BOOST_TEST(error_of(base + "unavailable.value.placeholder: 'hex:6e2'\n") ==
               "router.yaml:5: unavailable.value.placeholder: \"hex:6e2\": after hex: an even number of hexadecimal digits");
    BOOST_TEST(error_of(base + "unavailable.value.placeholder: 'hex:ff'\n") ==
               "router.yaml:5: unavailable.value.placeholder: \"hex:ff\": the bytes must be ASCII text (1 to 7f)");
}

// Apicurio's AvroConverter in its default wire format (Confluent's, with content ids), through
// the same server's Confluent-compatible API; settings that change the format are refused.
BOOST_AUTO_TEST_CASE(apicurio_converter_in_its_default_wire_format) {
    const auto base = [](std::initializer_list<std::string> extra) {
        std::string text = yaml({"postgres:", "  conninfo: dbname=app", "kafka:", "  bootstrap.servers: k:9092",
                                 "value.converter: io.apicurio.registry.utils.converter.AvroConverter"});
        for (const auto& line : extra) text += line + "\n";
        return text;
    };
    const Config c = parse(base({"value.converter.apicurio.registry.url: https://reg:8443/apis/registry/v3/",
                                 "value.converter.apicurio.registry.auth.username: router",
                                 "value.converter.apicurio.registry.auth.password: pw",
                                 "value.converter.apicurio.registry.tls.truststore.location: /etc/ca.pem",
                                 "value.converter.apicurio.registry.tls.truststore.type: PEM",
                                 "value.converter.apicurio.registry.use-id: contentId",
                                 "value.converter.apicurio.registry.headers.enabled: false",
                                 "value.converter.apicurio.registry.id-handler: io.apicurio.registry.serde.Default4ByteIdHandler",
                                 "value.converter.apicurio.registry.artifact-resolver-strategy: "
                                 "io.apicurio.registry.serde.strategy.TopicIdStrategy",
                                 "value.converter.connect.meta.data: false"}));
    const auto& avro = c.format.value_avro;
    BOOST_TEST((c.format.value == Converter::avro));
    BOOST_TEST(avro.apicurio);
    BOOST_TEST(avro.registry_urls == (std::vector<std::string>{"https://reg:8443/apis/ccompat/v7"}));
    BOOST_TEST(!avro.auto_register);  // Apicurio's default
    BOOST_TEST(!avro.use_latest_version);
    BOOST_TEST(avro.user_info == "router:pw");
    BOOST_TEST(avro.ca_location == "/etc/ca.pem");
    BOOST_TEST(!avro.connect_meta_data);
    const Config found = parse(base({"value.converter.apicurio.registry.url: http://reg:8080",
                                     "value.converter.apicurio.registry.find-latest: true"}));
    BOOST_TEST(found.format.value_avro.registry_urls == (std::vector<std::string>{"http://reg:8080/apis/ccompat/v7"}));
    BOOST_TEST(found.format.value_avro.use_latest_version);
    BOOST_TEST(parse(base({"value.converter.apicurio.registry.url: http://reg:8080/apis/registry/v2",
                           "value.converter.apicurio.registry.auto-register: true"}))
                   .format.value_avro.auto_register);

    BOOST_TEST(error_of(base({})) ==
               "router.yaml:5: value.converter: Apicurio's AvroConverter needs value.converter.apicurio.registry.url");
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080/apis/other"})) ==
               "router.yaml:6: value.converter.apicurio.registry.url: expected Apicurio Registry's core API URL "
               "(http://host:port/apis/registry/v3), got \"http://reg:8080/apis/other\"");
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080",
                              "value.converter.apicurio.registry.headers.enabled: true"}))
                   .find("router.yaml:7: value.converter.apicurio.registry.headers.enabled: \"true\" is not supported: "
                         "the router writes the schema's id in the record's bytes") == 0);
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080",
                              "value.converter.apicurio.registry.use-id: globalId"}))
                   .find("router.yaml:7: value.converter.apicurio.registry.use-id: \"globalId\" is not supported") == 0);
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080",
                              "value.converter.apicurio.registry.id-handler: io.apicurio.registry.serde.Legacy8ByteIdHandler"}))
                   .find("is not supported: only io.apicurio.registry.serde.Default4ByteIdHandler") != std::string::npos);
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080",
                              "value.converter.apicurio.registry.artifact-resolver-strategy: "
                              "io.apicurio.registry.serde.strategy.RecordIdStrategy"}))
                   .find("is not supported: only io.apicurio.registry.serde.strategy.TopicIdStrategy") != std::string::npos);
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080",
                              "value.converter.apicurio.registry.auth.service.token.endpoint: http://kc/token"}))
                   .find("router.yaml:7: value.converter.apicurio.registry.auth.service.token.endpoint: a setting of "
                         "Apicurio's AvroConverter the router does not support") == 0);
    BOOST_TEST(error_of(base({"value.converter.apicurio.registry.url: http://reg:8080",
                              "value.converter.schema.registry.url: http://reg:8080/apis/ccompat/v7"})) ==
               "router.yaml:7: value.converter.schema.registry.url: a setting of Confluent's AvroConverter, but "
               "value.converter names Apicurio's");
}

// Confluent's AvroConverter with its settings, as Kafka Connect names them.
BOOST_AUTO_TEST_CASE(avro_converters_with_their_registry_settings) {
    setenv("OUTBOX_TEST_REGISTRY_SECRET", "router:s3cret", 1);
    const Config c = parse(yaml({
        "postgres:", "  conninfo: dbname=app", "kafka:", "  bootstrap.servers: k:9092",
        "topic.prefix: outbox",
        "value.converter: io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url: \"https://r1:8081, https://r2:8081\"",
        "value.converter.basic.auth.credentials.source: USER_INFO",
        "value.converter.basic.auth.user.info: \"${env:OUTBOX_TEST_REGISTRY_SECRET}\"",
        "value.converter.schema.registry.ssl.truststore.location: /etc/ca.pem",
        "value.converter.schema.registry.ssl.truststore.type: PEM",
        "value.converter.auto.register.schemas: false",
        "value.converter.value.subject.name.strategy: io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
        "value.converter.connect.meta.data: false",
        "key.converter: io.confluent.connect.avro.AvroConverter",
        "key.converter.schema.registry.url: http://r3:8081",
        "schema.name.adjustment.mode: avro",
    }));
    BOOST_TEST((c.format.value == Converter::avro));
    BOOST_TEST((c.format.key == Converter::avro));
    BOOST_TEST(c.format.value_schemas);
    BOOST_TEST(c.format.key_schemas);
    BOOST_TEST(c.format.value_avro.registry_urls == (std::vector<std::string>{"https://r1:8081", "https://r2:8081"}));
    BOOST_TEST(c.format.value_avro.user_info == "router:s3cret");
    BOOST_TEST(c.format.value_avro.ca_location == "/etc/ca.pem");
    BOOST_TEST(!c.format.value_avro.auto_register);
    BOOST_TEST((c.format.value_avro.subject_strategy == SubjectNameStrategy::topic_record));
    BOOST_TEST(!c.format.value_avro.connect_meta_data);
    BOOST_TEST(c.format.key_avro.registry_urls == (std::vector<std::string>{"http://r3:8081"}));
    BOOST_TEST(c.format.key_avro.auto_register);
    BOOST_TEST((c.format.schema_names == NameAdjustmentMode::avro));

    const auto base = [](std::initializer_list<std::string> extra) {
        std::string text = yaml({"postgres:", "  conninfo: dbname=app", "kafka:", "  bootstrap.servers: k:9092"});
        for (const auto& line : extra) text += line + "\n";
        return text;
    };
    BOOST_TEST(error_of(base({"value.converter: io.confluent.connect.avro.AvroConverter"})) ==
               "router.yaml:5: value.converter: AvroConverter needs value.converter.schema.registry.url");
    const Config latest = parse(base({"value.converter: io.confluent.connect.avro.AvroConverter",
                                      "value.converter.schema.registry.url: http://r:8081",
                                      "value.converter.auto.register.schemas: false",
                                      "value.converter.use.latest.version: true",
                                      "value.converter.latest.compatibility.strict: false"}));
    BOOST_TEST(latest.format.value_avro.use_latest_version);
    BOOST_TEST(!latest.format.value_avro.latest_compatibility_strict);
    BOOST_TEST(!latest.format.value_avro.apicurio);
    BOOST_TEST(error_of(base({"value.converter: io.confluent.connect.avro.AvroConverter",
                              "value.converter.schema.registry.url: http://r:8081",
                              "value.converter.apicurio.registry.auto-register: true"})) ==
               "router.yaml:7: value.converter.apicurio.registry.auto-register: a setting of Apicurio's AvroConverter, "
               "but value.converter names Confluent's");
    BOOST_TEST(error_of(base({"value.converter: io.confluent.connect.avro.AvroConverter",
                              "value.converter.schema.registry.url: http://r:8081",
                              "value.converter.schema.registry.ssl.keystore.type: JKS"}))
                   .find("router.yaml:7: value.converter.schema.registry.ssl.keystore.type: only PEM is supported") == 0);
    BOOST_TEST(error_of(base({"value.converter.shema.registry.url: http://r:8081"}))
                   .find("router.yaml:5: value.converter.shema.registry.url: unknown AvroConverter setting") == 0);
}
