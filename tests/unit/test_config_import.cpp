#define BOOST_TEST_MODULE config_import
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include <libpq-fe.h>

#include "outbox/config/config.hpp"
#include "outbox/migration/config_import.hpp"
#include "outbox/util/java_properties.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox::migration;
using outbox::util::parse_java_properties;

namespace {

// Debezium's own outbox example (debezium-examples, outbox/register-postgres.json): the pre-2.0
// key names a migrating user still has.
const std::string kExampleConnector = R"({
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "tasks.max": "1",
    "database.hostname": "order-db",
    "database.port": "5432",
    "database.user": "postgresuser",
    "database.password": "postgrespw",
    "database.dbname" : "orderdb",
    "database.server.name": "dbserver1",
    "schema.whitelist": "inventory",
    "table.whitelist" : "inventory.outboxevent",
    "tombstones.on.delete" : "false",
    "transforms" : "outbox",
    "transforms.outbox.type" : "io.debezium.transforms.outbox.EventRouter",
    "transforms.outbox.route.topic.replacement" : "${routedByValue}.events",
    "transforms.outbox.table.field.event.timestamp" : "timestamp"
})";

ImportedConfig import_text(const std::string& text, const std::optional<std::string>& worker = std::nullopt) {
    return import_debezium(read_connector_settings(text, "connector", worker, "worker.properties"), "test");
}

outbox::config::Config load(const ImportedConfig& imported) {
    ::setenv("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", 1);
    return outbox::config::parse_config(imported.yaml, "imported.yaml");
}

std::vector<std::string> keys_not_imported(const ImportedConfig& imported) {
    std::vector<std::string> keys;
    for (const auto& n : imported.not_imported) keys.push_back(n.key);
    return keys;
}

std::string kafka_property(const outbox::config::Config& config, const std::string& name) {
    for (const auto& p : config.kafka.properties)
        if (p.name == name) return p.value;
    return "<absent>";
}

std::string error_of(const std::string& text) {
    try {
        import_text(text);
    } catch (const outbox::ConfigError& e) {
        return e.what();
    }
    return "<no error>";
}

}  // namespace

BOOST_AUTO_TEST_CASE(debeziums_outbox_example_imports_to_a_config_the_router_loads) {
    const auto imported = import_text(kExampleConnector);
    BOOST_TEST_MESSAGE(imported.yaml);
    const auto config = load(imported);
    BOOST_TEST(config.postgres.conninfo == "host=order-db port=5432 user=postgresuser password=postgrespw dbname=orderdb");
    BOOST_REQUIRE(config.postgres.tables.size() == 1u);
    BOOST_TEST(config.postgres.tables[0].qualified() == "inventory.outboxevent");
    BOOST_TEST(config.outbox.route_topic_replacement == "${routedByValue}.events");
    BOOST_TEST(config.outbox.field_event_timestamp == "timestamp");
    BOOST_TEST(kafka_property(config, "bootstrap.servers") == "kafka:9092");
    // Debezium's default context headers, named after the (pre-2.0) server name.
    BOOST_TEST(config.format.context_headers);
    BOOST_TEST(config.format.topic_prefix == "dbserver1");
    // Listed, in file order, with the missing bootstrap.servers last.
    BOOST_TEST(keys_not_imported(imported) ==
                   (std::vector<std::string>{"schema.whitelist", "bootstrap.servers"}),
               boost::test_tools::per_element());
    BOOST_TEST(imported.yaml.find("# Not imported:") != std::string::npos);
}

// Connect's transform chain: an EventRouter with a predicate routes its table's records, and a
// later EventRouter for every table passes them through (they are no change events any more), so
// the predicated table does not inherit the later one's options; an EventRouter after one for
// every table never sees a change event.
BOOST_AUTO_TEST_CASE(event_routers_in_a_chain_apply_as_connect_applies_them) {
    const auto imported = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "shop", "topic.prefix": "shop",
        "table.include.list": "sales.outbox,billing.outbox,crm.outbox",
        "transforms": "sales,all,late",
        "transforms.sales.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.sales.predicate": "isSales",
        "transforms.sales.route.by.field": "kind",
        "transforms.all.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.all.table.fields.additional.placement": "type:header:eventType",
        "transforms.late.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.late.predicate": "isCrm",
        "transforms.late.table.field.event.key": "crm_id",
        "predicates": "isSales,isCrm",
        "predicates.isSales.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isSales.pattern": "shop\\.sales\\.outbox",
        "predicates.isCrm.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isCrm.pattern": "shop\\.crm\\.outbox"})");
    BOOST_TEST_MESSAGE(imported.yaml);
    const auto config = load(imported);
    const auto& sales = config.outbox.for_table({"sales", "outbox"});
    BOOST_TEST(sales.route_by_field == "kind");
    BOOST_TEST(sales.additional_fields.empty());  // the later EventRouter's header is not Debezium's here
    for (const char* other : {"billing", "crm"}) {
        const auto& settings = config.outbox.for_table({other, "outbox"});
        BOOST_TEST(settings.additional_fields.size() == 1u);
        BOOST_TEST(settings.field_event_key == "aggregateid");  // `late` never sees a change event
    }
    bool late_listed = false;
    for (const auto& n : imported.not_imported)
        if (n.key == "transforms.late.table.field.event.key")
            late_listed = n.reason.find("comes after one that applies to every table") != std::string::npos;
    BOOST_TEST(late_listed);
}

BOOST_AUTO_TEST_CASE(event_routers_chosen_by_topic_predicates_become_table_overrides) {
    const auto imported = import_text(R"({"name": "orders", "config": {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "shop", "database.user": "dbz",
        "database.password": "${env:PG_PASSWORD}",
        "topic.prefix": "shop", "slot.name": "orders_slot", "publication.name": "orders_pub",
        "slot.failover": "false", "publication.autocreate.mode": "filtered", "plugin.name": "pgoutput", "snapshot.mode": "no_data",
        "table.include.list": "sales\\.outbox,billing\\.outbox",
        "transforms": "sales,billing",
        "transforms.sales.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.sales.predicate": "isSales",
        "transforms.sales.route.by.field": "kind",
        "transforms.sales.table.expand.json.payload": true,
        "transforms.billing.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.billing.predicate": "isBilling",
        "transforms.billing.table.field.event.key": "invoice_id",
        "transforms.billing.table.fields.additional.placement": "type:header:eventType",
        "predicates": "isSales,isBilling",
        "predicates.isSales.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isSales.pattern": "shop\\.sales\\.outbox",
        "predicates.isBilling.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isBilling.pattern": "shop\\.billing\\.outbox",
        "errors.tolerance": "all", "errors.deadletterqueue.topic.name": "outbox-dlq",
        "exactly.once.support": "required",
        "producer.override.linger.ms": "20", "producer.override.compression.type": "zstd"
    }})",
                                      "bootstrap.servers=k1:9092,k2:9092\nproducer.linger.ms=5\n"
                                      "producer.max.request.size=2097152\nplugin.path=/opt/connectors\n"
                                      "key.converter=org.apache.kafka.connect.storage.StringConverter\n");
    BOOST_TEST_MESSAGE(imported.yaml);
    ::setenv("PG_PASSWORD", "s3cret", 1);
    const auto config = load(imported);
    BOOST_TEST(config.postgres.conninfo == "host=db dbname=shop user=dbz password=s3cret");
    BOOST_TEST(config.postgres.slot_name == "orders_slot");
    BOOST_TEST(config.postgres.slot_failover.value_or(true) == false);  // kept where Debezium's config sets it
    BOOST_TEST(config.postgres.publication_name == "orders_pub");
    BOOST_REQUIRE(config.outbox.table_overrides.size() == 2u);
    const auto& sales = config.outbox.for_table({"sales", "outbox"});
    BOOST_TEST(sales.route_by_field == "kind");
    BOOST_TEST(sales.expand_json_payload);
    const auto& billing = config.outbox.for_table({"billing", "outbox"});
    BOOST_TEST(billing.field_event_key == "invoice_id");
    BOOST_TEST(billing.additional_fields.size() == 1u);
    BOOST_TEST(billing.route_by_field == "aggregatetype");
    BOOST_TEST((config.errors_tolerance == outbox::config::ErrorTolerance::all));
    BOOST_TEST(config.dead_letter_topic == "outbox-dlq");
    BOOST_TEST((config.delivery_guarantee == outbox::config::DeliveryGuarantee::exactly_once));
    BOOST_TEST(kafka_property(config, "bootstrap.servers") == "k1:9092,k2:9092");
    BOOST_TEST(kafka_property(config, "linger.ms") == "20");  // the connector's override wins
    BOOST_TEST(kafka_property(config, "message.max.bytes") == "2097152");
    BOOST_TEST(kafka_property(config, "compression.type") == "zstd");
    BOOST_TEST(keys_not_imported(imported) == (std::vector<std::string>{"plugin.path"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_debezium_server_application_properties_imports_with_its_environment_references) {
    const auto imported = import_text(
        "debezium.sink.type=kafka\n"
        "debezium.sink.kafka.producer.bootstrap.servers=${KAFKA_BOOTSTRAP_SERVERS}\n"
        "debezium.sink.kafka.producer.key.serializer=org.apache.kafka.common.serialization.StringSerializer\n"
        "debezium.sink.kafka.producer.client.id=${RELAY:outbox-relay}\n"
        "debezium.sink.kafka.producer.security.protocol=SASL_SSL\n"
        "debezium.sink.kafka.producer.sasl.mechanism=SCRAM-SHA-512\n"
        "debezium.sink.kafka.producer.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
        "required \\\n    username=\"relay\" password=\"${KAFKA_PASSWORD}\";\n"
        "debezium.sink.kafka.producer.ssl.truststore.location=/certs/truststore.jks\n"
        "debezium.source.connector.class=io.debezium.connector.postgresql.PostgresConnector\n"
        "debezium.source.offset.storage.file.filename=data/offsets.dat\n"
        "debezium.source.database.hostname=postgres\n"
        "debezium.source.database.port=5432\n"
        "debezium.source.database.user=postgres\n"
        "debezium.source.database.password=${PG_PASSWORD:changeme}\n"
        "debezium.source.database.dbname=app db\n"
        "debezium.source.topic.prefix=app\n"
        "debezium.source.table.include.list=public.outbox\n"
        "debezium.source.plugin.name=pgoutput\n"
        "debezium.transforms=outbox\n"
        "debezium.transforms.outbox.type=io.debezium.transforms.outbox.EventRouter\n"
        "debezium.transforms.outbox.route.tombstone.on.empty.payload=true\n"
        "debezium.format.value=json\n"
        "quarkus.log.console.json=false\n");
    BOOST_TEST_MESSAGE(imported.yaml);
    ::setenv("PG_PASSWORD", "pg pass word", 1);
    ::setenv("KAFKA_PASSWORD", "kafka-pass", 1);
    ::setenv("RELAY", "relay-1", 1);
    const auto config = load(imported);
    // Values with blanks, and references that may hold them, are quoted in the conninfo.
    BOOST_TEST(config.postgres.conninfo == "host=postgres port=5432 user=postgres password='pg pass word' dbname='app db'");
    BOOST_TEST(config.outbox.route_tombstone_on_empty_payload);
    BOOST_TEST(kafka_property(config, "bootstrap.servers") == "kafka:9092");
    BOOST_TEST(kafka_property(config, "sasl.mechanisms") == "SCRAM-SHA-512");
    BOOST_TEST(kafka_property(config, "sasl.username") == "relay");
    // ${NAME:default} is an environment reference there, even with a name of letters only.
    BOOST_TEST(kafka_property(config, "client.id") == "relay-1");
    BOOST_TEST(kafka_property(config, "sasl.password") == "kafka-pass");
    BOOST_TEST(keys_not_imported(imported) ==
                   (std::vector<std::string>{"offset.storage.file.filename", "producer key.serializer",
                                             "producer ssl.truststore.location", "quarkus.log.console.json"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(secrets_from_config_providers_are_listed_without_their_values) {
    const auto imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.password": "${vault:secret/pg:password}",
        "producer.override.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"${vault:secret/k:pw}\";",
        "producer.override.ssl.truststore.password": "hunter2"
    })");
    BOOST_TEST(imported.yaml.find("database.password = ****") != std::string::npos);
    BOOST_TEST(imported.yaml.find("hunter2") == std::string::npos);
    BOOST_TEST(imported.yaml.find("vault:") == std::string::npos);
    const auto config = load(imported);
    BOOST_TEST(config.postgres.conninfo == "host=db");  // libpq reads PGPASSWORD or ~/.pgpass
    BOOST_TEST(keys_not_imported(imported) ==
                   (std::vector<std::string>{"extended.headers.enabled", "database.password",
                                             "producer sasl.jaas.config", "producer ssl.truststore.password",
                                             "bootstrap.servers"}),
               boost::test_tools::per_element());
}

// FileConfigProvider's references carry over as written; the router reads the file at load.
BOOST_AUTO_TEST_CASE(file_config_provider_references_are_kept_and_read_at_load) {
    const std::string path = "/tmp/outbox-import-secrets-" + std::to_string(::getpid()) + ".properties";
    std::ofstream(path) << "pg.password=pg secret 1\nkafka.password=kafka-secret-2\n";
    const auto imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.password": "${file:)" + path + R"(:pg.password}",
        "producer.override.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"${file:)" + path + R"(:kafka.password}\";"
    })");
    BOOST_TEST_MESSAGE(imported.yaml);
    BOOST_TEST(imported.yaml.find("${file:" + path + ":pg.password}") != std::string::npos);
    BOOST_TEST(imported.yaml.find("${file:" + path + ":kafka.password}") != std::string::npos);
    BOOST_TEST(imported.yaml.find("pg secret 1") == std::string::npos);
    BOOST_TEST(imported.yaml.find("kafka-secret-2") == std::string::npos);
    const auto config = load(imported);
    std::remove(path.c_str());
    BOOST_TEST(config.postgres.conninfo == "host=db password='pg secret 1'");
    BOOST_TEST(kafka_property(config, "sasl.password") == "kafka-secret-2");
    BOOST_TEST(keys_not_imported(imported) == (std::vector<std::string>{"extended.headers.enabled", "bootstrap.servers"}),
               boost::test_tools::per_element());
}

// A secret holding what a conninfo gives meaning to (quote, backslash, blank, '=') reaches libpq
// as it is in the file: the router expands the reference inside the value it stands in.
BOOST_AUTO_TEST_CASE(a_file_secret_with_quotes_backslashes_and_blanks_reaches_libpq_exactly) {
    const std::string path = "/tmp/outbox-import-quoted-" + std::to_string(::getpid()) + ".properties";
    std::ofstream(path) << "pg.password=o'k \\\\ s3cr=t x\n";
    const auto imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.user": "it's me", "database.password": "${file:)" + path + R"(:pg.password}"
    })");
    BOOST_TEST_MESSAGE(imported.yaml);
    const auto config = load(imported);
    std::remove(path.c_str());
    char* message = nullptr;
    PQconninfoOption* options = PQconninfoParse(config.postgres.conninfo.c_str(), &message);
    BOOST_REQUIRE(options);
    std::map<std::string, std::string> values;
    for (const PQconninfoOption* o = options; o->keyword; ++o)
        if (o->val) values[o->keyword] = o->val;
    PQconninfoFree(options);
    BOOST_TEST(values["password"] == "o'k \\ s3cr=t x");
    BOOST_TEST(values["user"] == "it's me");
    BOOST_TEST(values["host"] == "db");
}

// Kafka's JaasConfig reads a quoted option as java.io.StreamTokenizer does: \" a quote, \\ a
// backslash, \101 an octal character code.
BOOST_AUTO_TEST_CASE(a_jaas_password_with_escaped_quotes_and_backslashes_carries_over_exactly) {
    const auto imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db",
        "producer.override.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\\\"1\" password=\"a\\\"b\\\\c d\\101\";"
    })");
    BOOST_TEST_MESSAGE(imported.yaml);
    const auto config = load(imported);
    BOOST_TEST(kafka_property(config, "sasl.username") == "u\"1");
    BOOST_TEST(kafka_property(config, "sasl.password") == "a\"b\\c dA");
}

// An octal escape above \177 is a Java char, which Kafka sends as UTF-8; long values (inlined
// certificate bundles, tokens) are read without recursion, which would exhaust the stack.
BOOST_AUTO_TEST_CASE(a_jaas_password_with_an_octal_latin1_escape_or_of_great_length_carries_over) {
    const auto imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db",
        "producer.override.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"caf\\351\";"
    })");
    BOOST_TEST(kafka_property(load(imported), "sasl.password") == "caf\xC3\xA9");
    const std::string long_password(200000, 'p');
    const std::string long_unknown(200000, 'q');
    const auto long_imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db",
        "some.unknown.setting": ")" + long_unknown + R"(",
        "producer.override.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\")" +
                                           long_password + R"(\";"
    })");
    BOOST_TEST(kafka_property(load(long_imported), "sasl.password") == long_password);
    // Listed as not imported, masked: only inlined certificates, keys and tokens are that long.
    BOOST_TEST(long_imported.yaml.find("some.unknown.setting") != std::string::npos);
    BOOST_TEST(long_imported.yaml.find(long_unknown.substr(0, 100)) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(what_only_looks_like_a_table_list_or_an_event_router_is_listed) {
    const auto imported = import_text(R"({
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db",
        "table.include.list": "public\\.outbox_.*",
        "transforms": "route,unwrap",
        "transforms.route.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.route.route.topic.replacement": "events.${routedByValue}",
        "transforms.route.table.field.event.schema.version": "version",
        "transforms.route.no.such.option": "x",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "topic.creation.default.partitions": "6",
        "topic.creation.default.replication.factor": "3",
        "topic.creation.groups": "compacted",
        "topic.creation.compacted.include": "events\\..*",
        "topic.creation.compacted.cleanup.policy": "compact"
    })");
    const auto config = load(imported);
    BOOST_TEST(config.topic_creation.enabled);
    BOOST_REQUIRE(config.topic_creation.groups.size() == 2u);
    BOOST_TEST(config.topic_creation.groups[0].include == (std::vector<std::string>{"events\\..*"}));
    BOOST_TEST(config.topic_creation.groups[1].partitions == 6);
    BOOST_TEST(config.outbox.route_topic_replacement == "events.${routedByValue}");
    BOOST_TEST(config.outbox.field_event_schema_version == "version");
    BOOST_TEST(keys_not_imported(imported) ==
                   (std::vector<std::string>{"transforms.route.no.such.option", "transforms.unwrap.type",
                                             "extended.headers.enabled", "table.include.list",
                                             "bootstrap.servers"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(what_is_not_a_postgresql_connector_is_refused_with_the_reason) {
    BOOST_TEST(error_of(R"({"connector.class": "io.debezium.connector.mysql.MySqlConnector"})").find(
                   "connector.class is io.debezium.connector.mysql.MySqlConnector; outbox-router reads PostgreSQL only") !=
               std::string::npos);
    BOOST_TEST(error_of(R"({"name": "x"})").find("no connector.class") != std::string::npos);
    // Without database.* there is no conninfo to write: listed, and the router's load says so.
    const auto bare = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector"})");
    BOOST_TEST(keys_not_imported(bare) == (std::vector<std::string>{"extended.headers.enabled", "database.hostname", "bootstrap.servers"}),
               boost::test_tools::per_element());
    BOOST_CHECK_THROW(load(bare), outbox::ConfigError);
    BOOST_TEST(error_of("{\"connector.class\": ").find("not valid JSON") != std::string::npos);
    BOOST_TEST(error_of(R"({"connector.class": ["a"]})").find("connector: connector.class: expected a string") !=
               std::string::npos);
    BOOST_TEST(error_of("debezium.sink.type=pubsub\ndebezium.source.connector.class=x.PostgresConnector\n")
                   .find("connector:1: debezium.sink.type is \"pubsub\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(java_properties_are_read_as_java_reads_them) {
    const auto entries = parse_java_properties(
        "# comment\n"
        "  ! another\n"
        "a=1\n"
        "b : two words \n"
        "c three\n"
        "d\\ key=x\\ty\\u00e9\\uD83D\\uDE00\n"
        "e=first \\\n"
        "     second\\\\\n"
        "f=\r\n"
        "g=end \\\\\\\n"
        "  more");
    std::vector<std::string> shown;
    for (const auto& e : entries) shown.push_back(std::to_string(e.line) + ":" + e.key + "=" + e.value);
    BOOST_TEST(shown == (std::vector<std::string>{"3:a=1", "4:b=two words ", "5:c=three", "6:d key=x\ty\xc3\xa9\xf0\x9f\x98\x80",
                                                  "7:e=first second\\", "9:f=", "10:g=end \\more"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(column_modes_the_router_writes_are_imported_and_the_others_listed) {
    const auto imported = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "app", "extended.headers.enabled": "false",
        "decimal.handling.mode": "string", "time.precision.mode": "nanoseconds", "binary.handling.mode": "hex",
        "interval.handling.mode": "string", "hstore.handling.mode": "map", "money.fraction.digits": "3",
        "unavailable.value.placeholder": "n/a", "message.key.columns": "public.outbox:aggregateid"})");
    BOOST_TEST(keys_not_imported(imported) == (std::vector<std::string>{"time.precision.mode", "bootstrap.servers"}),
               boost::test_tools::per_element());
    const auto config = load(imported);
    BOOST_TEST((config.format.modes.decimal == outbox::config::DecimalHandlingMode::as_string));
    BOOST_TEST((config.format.modes.binary == outbox::config::BinaryHandlingMode::hex));
    BOOST_TEST((config.format.modes.time == outbox::config::TimePrecisionMode::adaptive));
    BOOST_TEST((config.format.modes.interval == outbox::config::IntervalHandlingMode::string));
    BOOST_TEST((config.format.modes.hstore == outbox::config::HStoreHandlingMode::map));
    BOOST_TEST(config.format.modes.money_fraction_digits == 3);
    BOOST_TEST(config.format.modes.unavailable_placeholder == "n/a");
    BOOST_REQUIRE(config.outbox.message_key_columns.size() == 1u);
    BOOST_TEST(config.outbox.message_key_columns[0].table_pattern == "public.outbox");
    BOOST_TEST(config.outbox.message_key_columns[0].columns == std::vector<std::string>{"aggregateid"},
               boost::test_tools::per_element());
    for (const auto& n : imported.not_imported)
        if (n.key == "time.precision.mode")
            BOOST_TEST(n.reason.find("only adaptive, adaptive_time_microseconds, connect, isostring") !=
                       std::string::npos, n.reason);
}

// event.converting.failure.handling.mode warn (Debezium's default) and skip make a value the
// converter fails on null, as the router does; fail (stop the task) has no equivalent and is listed.
BOOST_AUTO_TEST_CASE(a_converting_failure_mode_that_nulls_the_value_is_taken_and_fail_is_listed) {
    const auto with_mode = [](const std::string& mode) {
        return import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": "db", "database.dbname": "app", "extended.headers.enabled": "false",
            "event.converting.failure.handling.mode": ")" + mode + R"("})");
    };
    for (const std::string mode : {"warn", "skip"})
        BOOST_TEST(keys_not_imported(with_mode(mode)) == (std::vector<std::string>{"bootstrap.servers"}),
                   boost::test_tools::per_element());
    const auto fail = with_mode("fail");
    BOOST_TEST(keys_not_imported(fail) ==
                   (std::vector<std::string>{"event.converting.failure.handling.mode", "bootstrap.servers"}),
               boost::test_tools::per_element());
    for (const auto& n : fail.not_imported)
        if (n.key == "event.converting.failure.handling.mode")
            BOOST_TEST(n.reason.find("as warn and skip do; it never stops on one") != std::string::npos, n.reason);
}

// Debezium Server's json formats, with and without schemas, and Connect's JsonConverter for headers.
BOOST_AUTO_TEST_CASE(json_formats_import_as_json_converters) {
    const auto server = import_text(
        "debezium.sink.type=kafka\n"
        "debezium.sink.kafka.producer.bootstrap.servers=kafka:9092\n"
        "debezium.source.connector.class=io.debezium.connector.postgresql.PostgresConnector\n"
        "debezium.source.database.hostname=postgres\n"
        "debezium.source.database.dbname=app\n"
        "debezium.source.extended.headers.enabled=false\n"
        "debezium.format.value=json\n"
        "debezium.format.header=json\n"
        "debezium.format.schemas.enable=false\n"
        "debezium.format.key=json\n"
        "debezium.format.key.schemas.enable=true\n");
    const auto config = load(server);
    BOOST_TEST((config.format.value == outbox::config::Converter::json));
    BOOST_TEST((config.format.header == outbox::config::Converter::json));
    BOOST_TEST(!config.format.value_schemas);
    BOOST_TEST((config.format.key == outbox::config::Converter::json));
    BOOST_TEST(config.format.key_schemas);  // Debezium Server's json format keeps its schemas
    BOOST_TEST(keys_not_imported(server).empty());

    const auto connect = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "app", "extended.headers.enabled": "false",
        "header.converter": "org.apache.kafka.connect.json.JsonConverter",
        "header.converter.schemas.enable": "false"})");
    BOOST_TEST((load(connect).format.header == outbox::config::Converter::json));
}

// Kafka Connect (Worker, Plugins.newConverter) configures a connector's own converter from the
// connector's settings only, and otherwise uses the worker's converter with the worker's settings.
BOOST_AUTO_TEST_CASE(converters_are_merged_as_kafka_connect_merges_them) {
    const std::string connector = R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "extended.headers.enabled": "false")";
    const std::string json_worker = "bootstrap.servers=k:9092\n"
                                    "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
                                    "key.converter.schemas.enable=false\n"
                                    "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
                                    "value.converter.schemas.enable=false\n";
    // The connector names JsonConverter without schemas.enable: JsonConverter's default (schemas
    // on), not the worker's false.
    const auto named = import_text(connector + R"(, "value.converter": "org.apache.kafka.connect.json.JsonConverter"})",
                                   json_worker);
    BOOST_TEST(load(named).format.value_schemas);
    BOOST_TEST(!load(named).format.key_schemas);  // the key: the worker's converter and settings
    BOOST_TEST((load(named).format.key == outbox::config::Converter::json));
    BOOST_TEST(keys_not_imported(named) == (std::vector<std::string>{"value.converter", "value.converter.schemas.enable"}),
               boost::test_tools::per_element());

    // The connector names the class and its schemas.enable: the connector's.
    const auto own = import_text(connector + R"(, "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false"})", "value.converter=org.apache.kafka.connect.json.JsonConverter\n");
    BOOST_TEST(!load(own).format.value_schemas);

    // schemas.enable without a class: Connect ignores it and the worker's StringConverter applies.
    const auto ignored = import_text(connector + R"(, "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true"})",
                                     "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
                                     "value.converter=org.apache.kafka.connect.storage.StringConverter\n");
    const auto config = load(ignored);
    BOOST_TEST((config.format.key == outbox::config::Converter::string));
    BOOST_TEST((config.format.value == outbox::config::Converter::string));
    BOOST_TEST(config.format.value_struct_text);  // set explicitly, as the worker does
    BOOST_TEST(keys_not_imported(ignored) ==
                   (std::vector<std::string>{"key.converter.schemas.enable", "value.converter.schemas.enable",
                                             "bootstrap.servers"}),
               boost::test_tools::per_element());
    BOOST_TEST(ignored.yaml.find("Kafka Connect ignores a connector's value.converter.* settings") != std::string::npos);

    // Nothing on the connector: the worker's JsonConverter with the worker's settings.
    const auto worker_only = import_text(connector + "}", json_worker);
    BOOST_TEST((load(worker_only).format.value == outbox::config::Converter::json));
    BOOST_TEST(!load(worker_only).format.value_schemas);
    BOOST_TEST(keys_not_imported(worker_only).empty());

    // A worker converter the router cannot write is listed, not dropped.
    const auto avro = import_text(connector + "}", "value.converter=io.confluent.connect.avro.AvroConverter\n"
                                                  "value.converter.schema.registry.url=http://sr:8081\n"
                                                  "bootstrap.servers=k:9092\n");
    BOOST_TEST(keys_not_imported(avro).empty());
    BOOST_TEST((load(avro).format.value == outbox::config::Converter::avro));
    // Apicurio's, with its settings; one the router does not read is listed.
    const auto apicurio = import_text(connector + "}",
                                      "value.converter=io.apicurio.registry.utils.converter.AvroConverter\n"
                                      "value.converter.apicurio.registry.url=http://sr:8080/apis/registry/v3\n"
                                      "value.converter.apicurio.registry.auto-register=true\n"
                                      "value.converter.apicurio.registry.check-period-ms=1000\n"
                                      "bootstrap.servers=k:9092\n");
    BOOST_TEST(keys_not_imported(apicurio) ==
                   (std::vector<std::string>{"value.converter.apicurio.registry.check-period-ms"}),
               boost::test_tools::per_element());
    BOOST_TEST((load(apicurio).format.value == outbox::config::Converter::avro));
    BOOST_TEST(load(apicurio).format.value_avro.apicurio);
    BOOST_TEST(load(apicurio).format.value_avro.auto_register);
    BOOST_TEST(load(apicurio).format.value_avro.registry_urls ==
               (std::vector<std::string>{"http://sr:8080/apis/ccompat/v7"}));
}

// Debezium 2.0 removed the pre-1.8 names and 3.6 ignores them (the current option's default
// applies): left out with a note, so that the YAML starts and behaves as Debezium did.
BOOST_AUTO_TEST_CASE(legacy_event_router_names_are_left_out_so_the_yaml_starts) {
    const auto imported = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "extended.headers.enabled": "false",
        "transforms": "outbox", "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.outbox.debezium.op.invalid.behavior": "fatal",
        "transforms.outbox.debezium.expand.json.payload": "true"})");
    const auto config = load(imported);
    BOOST_TEST((config.outbox.op_invalid_behavior == outbox::config::InvalidOpBehavior::warn));
    BOOST_TEST(!config.outbox.expand_json_payload);
    BOOST_TEST(keys_not_imported(imported) ==
                   (std::vector<std::string>{"transforms.outbox.debezium.op.invalid.behavior",
                                             "transforms.outbox.debezium.expand.json.payload", "bootstrap.servers"}),
               boost::test_tools::per_element());
    BOOST_TEST(imported.yaml.find("ignore, applying table.op.invalid.behavior's default (warn)") != std::string::npos);
}

// Credentials are masked by what they are, whatever their key says.
BOOST_AUTO_TEST_CASE(credentials_are_masked_by_what_they_are) {
    const std::string pem = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----";
    const auto imported = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "extended.headers.enabled": "false",
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.basic.auth.user.info": "alice:Wonderland1",
        "value.converter.schema.registry.url": "https://bob:Builder2@sr.example:8081",
        "producer.override.ssl.keystore.key": ")" + pem + R"(",
        "producer.override.sasl.oauthbearer.client.credentials.client.secret": "Tr0ub4dor",
        "producer.override.sasl.login.callback.handler.class": "com.example.Handler",
        "custom.field": ")" + pem + R"(",
        "notes.bearer": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        "heartbeat.topics.prefix": "plain value"})");
    for (const char* secret : {"Wonderland1", "Builder2", "MIIEvQIBADANBg", "Tr0ub4dor", "com.example.Handler",
                               "c2lnbmF0dXJl"})
        BOOST_TEST(imported.yaml.find(secret) == std::string::npos, secret);
    BOOST_TEST(imported.yaml.find("heartbeat.topics.prefix = plain value") != std::string::npos);
    BOOST_TEST(masked_value("ssl.truststore.certificates", "x") == "****");
    BOOST_TEST(masked_value("value.converter.bearer.auth.token", "abc") == "****");
    BOOST_TEST(masked_value("snapshot.mode", "initial") == "initial");
}

// An Avro connector: Confluent's AvroConverter and its registry settings, from the connector or
// the worker; a credential written literally stays out of the YAML (and out of the listing).
BOOST_AUTO_TEST_CASE(avro_connectors_keep_their_converter_and_registry_settings) {
    const auto own = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "app", "topic.prefix": "app",
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": "http://registry:8081",
        "value.converter.basic.auth.credentials.source": "USER_INFO",
        "value.converter.basic.auth.user.info": "${file:/etc/secrets.properties:registry.user.info}",
        "value.converter.auto.register.schemas": "false",
        "value.converter.use.latest.version": "true",
        "value.converter.latest.compatibility.strict": "false",
        "key.converter": "io.confluent.connect.avro.AvroConverter",
        "key.converter.schema.registry.url": "http://registry:8081",
        "key.converter.basic.auth.user.info": "router:literal-secret-9"})");
    BOOST_TEST(own.yaml.find("value.converter: io.confluent.connect.avro.AvroConverter") != std::string::npos, own.yaml);
    BOOST_TEST(own.yaml.find("${file:/etc/secrets.properties:registry.user.info}") != std::string::npos, own.yaml);
    BOOST_TEST(own.yaml.find("literal-secret-9") == std::string::npos, own.yaml);
    BOOST_TEST(keys_not_imported(own) ==
                   (std::vector<std::string>{"key.converter.basic.auth.user.info", "bootstrap.servers"}),
               boost::test_tools::per_element());
    for (const auto& n : own.not_imported) BOOST_TEST(n.value.find("literal-secret-9") == std::string::npos);
    const std::string yaml = own.yaml;
    ::setenv("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", 1);
    const auto config = outbox::config::parse_config(
        std::string(yaml).replace(yaml.find("${file:/etc/secrets.properties:registry.user.info}"),
                                  std::string("${file:/etc/secrets.properties:registry.user.info}").size(), "u:p"),
        "imported.yaml");
    BOOST_TEST((config.format.value == outbox::config::Converter::avro));
    BOOST_TEST((config.format.key == outbox::config::Converter::avro));
    BOOST_TEST(!config.format.value_avro.auto_register);
    BOOST_TEST(config.format.value_avro.use_latest_version);
    BOOST_TEST(!config.format.value_avro.latest_compatibility_strict);
    BOOST_TEST(config.format.value_avro.registry_urls.front() == "http://registry:8081");

    // The worker's AvroConverter, with the worker's settings.
    const auto worker = import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "app", "topic.prefix": "app"})",
                                    "bootstrap.servers=k:9092\n"
                                    "value.converter=io.confluent.connect.avro.AvroConverter\n"
                                    "value.converter.schema.registry.url=http://r1:8081,http://r2:8081\n"
                                    "value.converter.enhanced.avro.schema.support=true\n");
    BOOST_TEST(worker.yaml.find("value.converter.schema.registry.url: ") != std::string::npos, worker.yaml);
    BOOST_TEST(keys_not_imported(worker).empty(), worker.yaml);
    BOOST_TEST(load(worker).format.value_avro.registry_urls.size() == 2u);
}

// Debezium's CloudEventsConverter on the connector, as its outbox examples configure it: its
// settings under the same keys, Debezium's defaults written out where the connector leaves them.
BOOST_AUTO_TEST_CASE(a_cloud_events_converter_imports_with_its_settings) {
    const std::string connector = R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "db", "database.dbname": "shop_db", "extended.headers.enabled": "false", "topic.prefix": "shop",
        "transforms": "outbox", "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.outbox.table.expand.json.payload": "true",
        "transforms.outbox.table.fields.additional.placement": "type:header:type",
        "value.converter": "io.debezium.converters.CloudEventsConverter",
        "value.converter.metadata.source": "header,id:header,type:header")";
    const auto imported = import_text(connector + R"(, "value.converter.extension.attributes.enable": "false",
        "value.converter.json.schemas.enable": "false"})");
    const auto config = load(imported);
    BOOST_TEST(config.format.cloud_events.enabled);
    BOOST_TEST(config.format.topic_prefix == "shop");
    BOOST_TEST(!config.format.cloud_events.type_generated);
    BOOST_TEST(keys_not_imported(imported) == std::vector<std::string>{"bootstrap.servers"}, imported.yaml);

    BOOST_TEST(!config.format.cloud_events.extension_attributes);

    // Left at Debezium's defaults: written out, extension attributes included, with the database.
    const auto defaults = import_text(connector + "}");
    BOOST_TEST(defaults.yaml.find("value.converter.extension.attributes.enable: true") != std::string::npos,
               defaults.yaml);
    BOOST_TEST(defaults.yaml.find("value.converter.json.schemas.enable: true") != std::string::npos, defaults.yaml);
    const auto with_defaults = load(defaults);
    BOOST_TEST(with_defaults.format.cloud_events.extension_attributes);
    BOOST_TEST(with_defaults.format.cloud_events.database == "shop_db");
}
