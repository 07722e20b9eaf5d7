#define BOOST_TEST_MODULE avro_registry
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <map>
#include <thread>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"
#include "http_get.hpp"
#include "schema_registry.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

// A command's standard output (and error), and its exit status.
std::pair<int, std::string> run(const std::string& command) {
    std::string output;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    BOOST_REQUIRE(pipe != nullptr);
    char buffer[4096];
    while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    return {WEXITSTATUS(status), output};
}

std::string records_script() { return std::string(OUTBOX_SOURCE_DIR) + "/tests/integration/avro_records.py"; }

// Confluent's client and Apache Avro for Java decode the Avro topic; the JSON-with-schemas topic
// holds the same rows.
std::string compare_with_json(const std::string& avro_topic, const std::string& json_topic, int count,
                              int json_count = 0) {
    return run(avro_readers_environment() + confluent_python() + " " + records_script() + " compare " + kafka_servers() +
               " " + schema_registry().url() + " " + avro_topic + " " + json_topic + " " + std::to_string(count) +
               (json_count ? ":" + std::to_string(json_count) : ""))
        .second;
}

// Confluent's AvroConverter on the test registry, over TLS with the test CA, with its credentials
// (`user_info`).
std::string avro_converter(const std::string& side, const std::string& user_info = SchemaRegistry::user_info()) {
    return side + ".converter: io.confluent.connect.avro.AvroConverter\n" + side +
           ".converter.schema.registry.url: \"" + schema_registry().url() + "\"\n" + side +
           ".converter.schema.registry.ssl.truststore.location: \"" + schema_registry().ca_file() + "\"\n" + side +
           ".converter.schema.registry.ssl.truststore.type: PEM\n" + side +
           ".converter.basic.auth.credentials.source: USER_INFO\n" + side + ".converter.basic.auth.user.info: \"" +
           user_info + "\"\n";
}

// The schema id a record in Confluent's wire format names.
std::int32_t schema_id_of_record(const std::string& bytes) {
    BOOST_REQUIRE(bytes.size() >= 5);
    BOOST_REQUIRE(bytes[0] == '\0');
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[1])) << 24) |
                                     (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[2])) << 16) |
                                     (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[3])) << 8) |
                                     static_cast<unsigned char>(bytes[4]));
}

// Two routers over the same rows, each with its own slot: JsonConverter with schemas to
// json.<type>, AvroConverter to avro.<type>.
struct TwoRouters {
    std::unique_ptr<RouterProcess> json;
    std::unique_ptr<RouterProcess> avro;

    // `avro_top`: the Avro router's own top-level settings; `converters`: its converters, Confluent's
    // AvroConverter for keys and values unless given.
    TwoRouters(const std::string& db, const std::string& outbox, const std::string& top,
               const std::string& avro_top = "", const std::string& converters = "") {
        const std::string conninfo = postgres().conninfo(db);
        const auto section = [&](const std::string& prefix) {
            return "outbox:\n  route.topic.replacement: \"" + prefix + ".${routedByValue}\"\n" + outbox;
        };
        json = std::make_unique<RouterProcess>(
            work_dir(), router_config_for(conninfo, db + "_json", "", top +
                                              "key.converter: org.apache.kafka.connect.json.JsonConverter\n"
                                              "value.converter: org.apache.kafka.connect.json.JsonConverter\n",
                                          section(db + "_json")));
        avro = std::make_unique<RouterProcess>(
            work_dir(), router_config_for(conninfo, db + "_avro", "",
                                          top + avro_top +
                                              (converters.empty() ? avro_converter("key") + avro_converter("value")
                                                                  : converters),
                                          section(db + "_avro")));
        BOOST_REQUIRE(json->wait_streaming());
        BOOST_REQUIRE_MESSAGE(avro->wait_streaming(), avro->output());
    }
};

struct RegistryFirst {
    // The registry takes half a minute to start: once, before the first case.
    RegistryFirst() { schema_registry(); }
};
BOOST_TEST_GLOBAL_FIXTURE(RegistryFirst);

}  // namespace

// Envelope fields of the types the JSON-with-schemas cases cover (Connect's Decimal, Date,
// Time and Timestamp, Debezium's VariableScaleDecimal and ZonedTimestamp, int16 with a default,
// float, bytes), Avro keys, and plain jsonb payloads (io.debezium.data.Json).
BOOST_AUTO_TEST_CASE(envelope_fields_keys_and_plain_payloads_decode_as_json_with_schemas_gives) {
    const auto db = create_outbox_database("avro_columns");
    Sql sql(postgres().conninfo(db));
    sql.exec("ALTER TABLE outbox ADD COLUMN amount numeric(10,2), ADD COLUMN happened date, "
             "ADD COLUMN flag boolean NOT NULL DEFAULT true, ADD COLUMN n smallint DEFAULT 7, ADD COLUMN ratio real, "
             "ADD COLUMN big bigint, ADD COLUMN raw bytea, ADD COLUMN at_time time(3), ADD COLUMN free numeric, "
             "ADD COLUMN at timestamp(3)");
    TwoRouters routers(db,
                       "  table.fields.additional.placement: \"amount:envelope,happened:envelope,flag:envelope,"
                       "n:envelope,ratio:envelope,big:envelope,raw:envelope,at_time:envelope,free:envelope,"
                       "at:envelope,created_at:envelope:created\"\n",
                       "topic.prefix: outbox\ntime.precision.mode: connect\n");
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, amount, happened, flag, n, ratio, big, "
             "raw, at_time, free, at) VALUES "
             "(md5('1')::uuid, 'Order', 'k-1', 'Created', '{\"a\": 1}', -123.45, '2024-02-29', false, -3, 3.14, "
             "9007199254740993, '\\x00ff10', '23:59:59.999', 1234.5000, '1969-12-31 23:59:59.999'), "
             "(md5('2')::uuid, 'Order', 'k-2', 'Created', NULL, NULL, NULL, true, NULL, NULL, NULL, NULL, NULL, NULL, "
             "NULL), "
             "(md5('3')::uuid, 'Order', 'k-3', 'Created', '[\"x\", {\"y\": null}]', 0.01, '1900-01-01', true, 32767, "
             "-0.5, -1, '', '00:00:00', -0.000001, '2038-01-19 03:14:08')");
    const std::string result = compare_with_json(db + "_avro.Order", db + "_json.Order", 3);
    BOOST_TEST(result.find("equal 3") != std::string::npos, result);
    // One schema for the values, one for the keys.
    BOOST_TEST(schema_registry().request("GET", "/subjects/" + db + "_avro.Order-value/versions").body == "[1]");
    BOOST_TEST(schema_registry().request("GET", "/subjects/" + db + "_avro.Order-key/versions").body == "[1]");
}

// Expanded payloads (structs, arrays, nested objects, nulls) as the value; a payload that gains an
// optional field registers a new version under BACKWARD, which a consumer on the first version
// still reads; a change the registry refuses stops the router with the subject, the version and
// the registry's reason.
BOOST_AUTO_TEST_CASE(expanded_payloads_evolve_and_a_refused_change_is_a_definite_error) {
    const auto db = create_outbox_database("avro_expanded");
    Sql sql(postgres().conninfo(db));
    TwoRouters routers(db, "  table.expand.json.payload: true\n", "");
    const auto insert = [&](int seq, const std::string& payload) {
        sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES (md5('" +
                 std::to_string(seq) + "')::uuid, 'Order', 'k', 'Created', '" + payload + "')");
    };
    insert(1, R"({"a": 1, "b": "x", "c": {"d": [1, 2], "e": null}, "f": [{"g": 1.5}, {"h": true}]})");
    insert(2, R"({"a": 2, "b": "y", "c": {"d": [], "e": "z"}, "f": []})");
    const std::string subject = db + "_avro.Order-value";
    std::string result = compare_with_json(db + "_avro.Order", db + "_json.Order", 2);
    BOOST_TEST(result.find("equal 2") != std::string::npos, result);
    const auto versions = schema_registry().request("GET", "/subjects/" + subject + "/versions").body;

    // Compatible: a new optional field.
    BOOST_TEST(schema_registry().request("PUT", "/config/" + subject, R"({"compatibility":"BACKWARD"})").status == 200);
    const auto first = nlohmann::json::parse(schema_registry().request("GET", "/subjects/" + subject + "/versions/1").body);
    insert(3, R"({"a": 3, "b": "w", "c": {"d": [3]}, "f": [{"g": 2.5}], "added": "new"})");
    result = compare_with_json(db + "_avro.Order", db + "_json.Order", 3);
    BOOST_TEST(result.find("equal 3") != std::string::npos, result);
    const auto grown = nlohmann::json::parse(schema_registry().request("GET", "/subjects/" + subject + "/versions").body);
    BOOST_TEST(grown.size() == nlohmann::json::parse(versions).size() + 1, grown.dump());
    const auto [status, lines] = run(avro_readers_environment() + confluent_python() + " " + records_script() + " old-reader " + kafka_servers() +
                                     " " + schema_registry().url() + " " + db + "_avro.Order 3 " +
                                     first.at("id").dump());
    BOOST_TEST(status == 0, lines);
    BOOST_TEST(lines.find(R"("a": 3)") != std::string::npos, lines);
    BOOST_TEST(lines.find("added") == std::string::npos, lines);  // the old reader does not know it

    // Refused: a's type changes.
    insert(4, R"({"a": "three", "b": "v", "c": {"d": [4]}, "f": []})");
    const int exit_code = routers.avro->wait(60s);
    const std::string output = routers.avro->output();
    BOOST_TEST(exit_code == 1, output);
    BOOST_TEST(last_line(output).find("subject \"" + subject + "\" as incompatible with its latest version") !=
                   std::string::npos,
               last_line(output));
    BOOST_TEST(last_line(output).find("Incompatible") != std::string::npos, last_line(output));
}

// The registry stops answering (SIGSTOP) while a new schema waits for its id: the router waits
// and retries, then delivers every event once the registry answers again, in order, none lost.
BOOST_AUTO_TEST_CASE(a_registry_outage_is_waited_out_without_losing_anything) {
    const auto db = create_outbox_database("avro_outage");
    Sql sql(postgres().conninfo(db));
    const auto port = static_cast<std::uint16_t>(free_loopback_port());
    RouterProcess router(work_dir(), router_config(db, "", avro_converter("value") +
                                                               "value.converter.schema.registry.request.timeout.ms: 1000\n") +
                                         "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n");
    BOOST_REQUIRE(router.wait_streaming());
    schema_registry().pause();
    sql.exec(outbox_rows_sql(0, 20, 3));
    // Between attempts (the reconnect backoff) /readyz names what ended the last connection.
    std::string named;
    const auto until = std::chrono::steady_clock::now() + 4s;
    while (std::chrono::steady_clock::now() < until) {
        const auto ready = http_get(port, "/readyz");
        if (ready.status == 503 && ready.body.find("not streaming (schema registry unreachable") != std::string::npos)
            named = ready.body;
        std::this_thread::sleep_for(100ms);
    }
    const std::string waiting = router.output();
    const auto unavailable = sample_value(http_get(port, "/metrics").body, "outbox_router_schema_registry_unavailable_total");
    schema_registry().resume();
    BOOST_TEST(router.running());
    BOOST_TEST(waiting.find("schema registry unreachable") != std::string::npos, waiting);
    BOOST_TEST(!named.empty());
    BOOST_TEST(unavailable.value_or(0) >= 1);
    const auto records = read_topic(kafka_servers(), "outbox.event.Order", 20, 120s);
    std::map<std::string, int> copies;
    for (const auto& r : records) ++copies[r.headers.front().second.value_or("")];
    BOOST_TEST(copies.size() == 20u);
    int duplicates = 0;
    for (const auto& [id, n] : copies) duplicates += n - 1;
    BOOST_TEST_MESSAGE("duplicates after the outage: " << duplicates);
    BOOST_TEST(duplicates == 0);  // nothing was delivered before the registry stalled
    for (const auto& r : records) BOOST_TEST(r.value.value().substr(0, 1) == std::string(1, '\0'));
}

// errors.tolerance all: a schema the registry refuses (409 under BACKWARD) sends its row to the
// dead-letter topic with the subject, the version and the registry's reason, and the rows after
// it are delivered. use.latest.version with auto.register.schemas false (a third router): a
// subject without versions, then a latest version that writes the record as its own schema does
// (registered ahead with a doc, so another text and another id) whose id the records carry, then
// a latest version of other fields, which is refused into that router's dead-letter topic.
BOOST_AUTO_TEST_CASE(refused_schemas_go_to_the_dead_letter_topic_and_use_latest_version_takes_the_latest_id) {
    const auto db = create_outbox_database("avro_latest");
    Sql sql(postgres().conninfo(db));
    const std::string tolerate = "errors.tolerance: all\nerrors.deadletterqueue.topic.name: " + db + ".dlq\n";
    TwoRouters routers(db, "  table.expand.json.payload: true\n", "", tolerate);
    RouterProcess latest(work_dir(),
                         router_config(db + "", "",
                                       avro_converter("key") + avro_converter("value") +
                                           "value.converter.auto.register.schemas: false\n"
                                                                 "value.converter.use.latest.version: true\n"
                                                                 "errors.tolerance: all\n"
                                                                 "errors.deadletterqueue.topic.name: " + db + ".latest.dlq\n",
                                       "outbox:\n  route.topic.replacement: \"" + db +
                                           "_latest.${routedByValue}\"\n  table.expand.json.payload: true\n"));
    BOOST_REQUIRE_MESSAGE(latest.wait_streaming(), latest.output());
    const auto insert = [&](int seq, const std::string& payload) {
        sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES (md5('" +
                 std::to_string(seq) + "')::uuid, 'Order', 'k', 'Created', '" + payload + "')");
    };
    const std::string subject = db + "_avro.Order-value";
    const std::string latest_subject = db + "_latest.Order-value";

    insert(1, R"({"a": 1, "b": "x"})");
    std::string result = compare_with_json(db + "_avro.Order", db + "_json.Order", 1);
    BOOST_TEST(contains(result, "equal 1"), result);
    auto letters = read_topic(kafka_servers(), db + ".latest.dlq", 1);
    BOOST_REQUIRE(letters.size() == 1u);
    BOOST_TEST(contains(letters[0].header("__connect.errors.exception.message").value_or(""),
                        "subject \"" + latest_subject + "\" has no version"),
               letters[0].header("__connect.errors.exception.message").value_or(""));

    // The schema the router registered, written again with a doc: the same Parsing Canonical Form.
    auto registered = nlohmann::json::parse(
        nlohmann::json::parse(schema_registry().request("GET", "/subjects/" + subject + "/versions/latest").body)
            .at("schema")
            .get<std::string>());
    // (An optional payload's schema is a union with null: the doc goes on its record.)
    auto& record = registered.is_array() ? registered.back() : registered;
    record["doc"] = "registered ahead of the router";
    const auto ahead = schema_registry().request("POST", "/subjects/" + latest_subject + "/versions",
                                                 nlohmann::json{{"schema", registered.dump()}}.dump());
    BOOST_REQUIRE_MESSAGE(ahead.status == 200, ahead.body);
    const auto ahead_id = nlohmann::json::parse(ahead.body).at("id").get<std::int32_t>();
    insert(2, R"({"a": 2, "b": "y"})");
    result = compare_with_json(db + "_latest.Order", db + "_json.Order", 1, 2);
    BOOST_TEST(contains(result, "equal 1"), result);
    const auto written = read_topic(kafka_servers(), db + "_latest.Order", 1);
    BOOST_REQUIRE(written.size() == 1u);
    BOOST_TEST(schema_id_of_record(written[0].value.value()) == ahead_id);

    // Refused: a's type changes under BACKWARD (409); the latest version has other fields.
    BOOST_TEST(schema_registry().request("PUT", "/config/" + subject, R"({"compatibility":"BACKWARD"})").status == 200);
    BOOST_TEST(schema_registry()
                   .request("POST", "/subjects/" + latest_subject + "/versions",
                            nlohmann::json{{"schema", R"({"type":"record","name":"Other","fields":[{"name":"z","type":"int"}]})"}}.dump())
                   .status == 200);
    insert(3, R"({"a": "three", "b": "z"})");
    insert(4, R"({"a": 4, "b": "w"})");
    result = compare_with_json(db + "_avro.Order", db + "_json.Order", 3, 4);
    BOOST_TEST(contains(result, "equal 3"), result);
    letters = read_topic(kafka_servers(), db + ".dlq", 1);
    BOOST_REQUIRE(letters.size() == 1u);
    const std::string cause = letters[0].header("__connect.errors.exception.message").value_or("");
    BOOST_TEST(letters[0].header("id").value_or("") == sql.scalar("SELECT md5('3')::uuid"));
    BOOST_TEST(contains(cause, "subject \"" + subject + "\" as incompatible with its latest version 1"), cause);
    BOOST_TEST(contains(cause, "Incompatible"), cause);
    // Row 4 has row 2's schema, whose latest version is remembered (latest.cache.ttl.sec's
    // default, no expiry): written with the id of version 1; row 3's schema meets version 2.
    result = compare_with_json(db + "_latest.Order", db + "_json.Order", 2, 4);
    BOOST_TEST(contains(result, "equal 2"), result);
    const auto latest_letters = read_topic(kafka_servers(), db + ".latest.dlq", 2);
    BOOST_REQUIRE(latest_letters.size() == 2u);
    for (const auto& letter : latest_letters) {
        const std::string why = letter.header("__connect.errors.exception.message").value_or("");
        if (letter.header("id").value_or("") == sql.scalar("SELECT md5('3')::uuid"))
            BOOST_TEST(contains(why, "version 2 of subject \"" + latest_subject + "\""), why);
        else
            BOOST_TEST(contains(why, "has no version"), why);
    }
    BOOST_TEST(routers.avro->running());
    BOOST_TEST(latest.running());
    // Nothing more than the rows named reached the Avro topics.
    BOOST_TEST(read_topic(kafka_servers(), db + "_avro.Order", 4, 3s).size() == 3u);
    BOOST_TEST(read_topic(kafka_servers(), db + "_latest.Order", 3, 3s).size() == 2u);
    for (const auto& r : read_topic(kafka_servers(), db + "_latest.Order", 2))
        BOOST_TEST(schema_id_of_record(r.value.value()) == ahead_id);
}

// Apicurio's own AvroConverter, named with its core API URL and auto-register: its default wire
// format is Confluent's with the content id of the artifact <topic>-value in the default group,
// which Apicurio's core API reports; Confluent's client and Apache Avro for Java read the records.
BOOST_AUTO_TEST_CASE(apicurio_converter_writes_content_ids_of_its_default_artifacts) {
    const auto db = create_outbox_database("avro_apicurio");
    Sql sql(postgres().conninfo(db));
    std::string converters;
    for (const std::string side : {"key", "value"})
        converters += side + ".converter: io.apicurio.registry.utils.converter.AvroConverter\n" + side +
                      ".converter.apicurio.registry.url: \"" + schema_registry().core_url() + "\"\n" + side +
                      ".converter.apicurio.registry.auto-register: true\n" + side +
                      ".converter.apicurio.registry.tls.truststore.location: \"" + schema_registry().ca_file() + "\"\n" +
                      side + ".converter.apicurio.registry.tls.truststore.type: PEM\n" + side +
                      ".converter.apicurio.registry.auth.username: router\n" + side +
                      ".converter.apicurio.registry.auth.password: \"" +
                      SchemaRegistry::user_info().substr(SchemaRegistry::user_info().find(':') + 1) + "\"\n";
    TwoRouters routers(db, "  table.expand.json.payload: true\n", "", "", converters);
    sql.exec(outbox_rows_sql(1, 2, 2));
    const std::string result = compare_with_json(db + "_avro.Order", db + "_json.Order", 2);
    BOOST_TEST(contains(result, "equal 2"), result);
    const auto records = read_topic(kafka_servers(), db + "_avro.Order", 2);
    BOOST_REQUIRE(records.size() == 2u);
    const auto meta = schema_registry().request(
        "GET", "/apis/registry/v3/groups/default/artifacts/" + db + "_avro.Order-value/versions/branch=latest");
    BOOST_REQUIRE_MESSAGE(meta.status == 200, meta.body);
    const auto content_id = nlohmann::json::parse(meta.body).at("contentId").get<std::int32_t>();
    for (const auto& r : records) BOOST_TEST(schema_id_of_record(r.value.value()) == content_id);
}

// --check against the registry: reachable over TLS with the CA and the credentials; refused
// credentials (401), the same registry without the CA (a certificate it cannot verify) and a port
// nothing listens on are FAIL lines naming the cause.
BOOST_AUTO_TEST_CASE(check_reaches_the_registry_and_names_why_it_cannot) {
    const auto db = create_outbox_database("avro_check");
    RouterProcess ok(work_dir(), router_config(db, "", avro_converter("value")), "--check");
    BOOST_TEST(ok.wait(60s) == 0, ok.output());
    BOOST_TEST(contains(ok.output(), "ok    schema registry (value.converter): reachable, credentials accepted"), ok.output());

    // Credentials the registry refuses: 401, named, the password nowhere in the output.
    RouterProcess wrong(work_dir(), router_config(db, "", avro_converter("value", "router:not-the-password")), "--check");
    BOOST_TEST(wrong.wait(60s) == 1, wrong.output());
    BOOST_TEST(contains(wrong.output(), "FAIL  schema registry (value.converter): schema registry https://127.0.0.1:"),
               wrong.output());
    BOOST_TEST(contains(wrong.output(), "HTTP 401 (unauthorized): the registry refused the basic.auth.user.info credentials"),
               wrong.output());
    BOOST_TEST(!contains(wrong.output(), "not-the-password"), wrong.output());

    // Streaming, the first record that needs an id ends the router: a definite error, named.
    RouterProcess streaming(work_dir(), router_config(db, "", avro_converter("value", "router:not-the-password")));
    BOOST_REQUIRE(streaming.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(1, 1, 1));
    BOOST_TEST(streaming.wait(60s) == 1, streaming.output());
    BOOST_TEST(contains(last_line(streaming.output()), "HTTP 401 (unauthorized): the registry refused the "
                                                       "basic.auth.user.info credentials"),
               last_line(streaming.output()));
    BOOST_TEST(!contains(streaming.output(), "not-the-password"), streaming.output());

    const std::string untrusted = "value.converter: io.confluent.connect.avro.AvroConverter\n"
                                  "value.converter.schema.registry.url: \"" + schema_registry().url() + "\"\n";
    RouterProcess no_ca(work_dir(), router_config(db, "", untrusted), "--check");
    BOOST_TEST(no_ca.wait(60s) == 1, no_ca.output());
    BOOST_TEST(contains(no_ca.output(), "FAIL  schema registry (value.converter): schema registry unreachable"), no_ca.output());
    BOOST_TEST(contains(no_ca.output(), "certificate"), no_ca.output());

    const std::string closed = "https://127.0.0.1:" + std::to_string(free_loopback_port()) + "/apis/ccompat/v7";
    RouterProcess refused(work_dir(),
                          router_config(db, "", "value.converter: io.confluent.connect.avro.AvroConverter\n"
                                                "value.converter.schema.registry.url: \"" + closed + "\"\n"),
                          "--check");
    BOOST_TEST(refused.wait(60s) == 1, refused.output());
    BOOST_TEST(contains(refused.output(), "FAIL  schema registry (value.converter): schema registry unreachable: " +
                                              closed.substr(0, closed.find("/apis"))),
               refused.output());
}

// `outbox-router import` of a connector with Confluent's AvroConverter for keys and Apicurio's for
// values, their credentials through Connect's FileConfigProvider: the YAML starts and produces
// records both readers decode as JsonConverter with schemas gives the same rows.
BOOST_AUTO_TEST_CASE(an_imported_avro_connector_starts_and_produces_readable_records) {
    const auto db = create_outbox_database("avro_import");
    Sql sql(postgres().conninfo(db));
    const std::string secrets = work_dir() + "/" + db + "-registry.properties";
    const std::string user_info = SchemaRegistry::user_info();
    write_file(secrets, "registry.user.info=" + user_info + "\nregistry.password=" +
                            user_info.substr(user_info.find(':') + 1) + "\n");
    const std::string connector = work_dir() + "/" + db + "-connector.json";
    const std::string ca = schema_registry().ca_file();
    write_file(connector, debezium_connector_json(db, db + "_imported.${routedByValue}", R"(,
        "transforms.outbox.table.expand.json.payload": "true",
        "key.converter": "io.confluent.connect.avro.AvroConverter",
        "key.converter.schema.registry.url": ")" + schema_registry().url() + R"(",
        "key.converter.basic.auth.credentials.source": "USER_INFO",
        "key.converter.basic.auth.user.info": "${file:)" + secrets + R"(:registry.user.info}",
        "key.converter.schema.registry.ssl.truststore.location": ")" + ca + R"(",
        "key.converter.schema.registry.ssl.truststore.type": "PEM",
        "value.converter": "io.apicurio.registry.utils.converter.AvroConverter",
        "value.converter.apicurio.registry.url": ")" + schema_registry().core_url() + R"(",
        "value.converter.apicurio.registry.auto-register": "true",
        "value.converter.apicurio.registry.auth.username": "router",
        "value.converter.apicurio.registry.auth.password": "${file:)" + secrets + R"(:registry.password}",
        "value.converter.apicurio.registry.tls.truststore.location": ")" + ca + R"(",
        "value.converter.apicurio.registry.tls.truststore.type": "PEM")"));
    const std::string yaml = work_dir() + "/" + db + "-imported.yaml";
    const int status = std::system((std::string(OUTBOX_ROUTER_BINARY) + " import " + connector + " >" + yaml +
                                    " 2>" + yaml + ".notes").c_str());
    BOOST_REQUIRE(WEXITSTATUS(status) == 0);
    const std::string imported = read_file(yaml);
    BOOST_TEST(!contains(imported, user_info.substr(user_info.find(':') + 1)), imported);
    BOOST_TEST(contains(imported, "value.converter: io.apicurio.registry.utils.converter.AvroConverter"), imported);
    ::setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_servers().c_str(), 1);
    RouterProcess router(work_dir(), imported);
    RouterProcess json(work_dir(),
                       router_config_for(postgres().conninfo(db), db + "_json", "",
                                         "key.converter: org.apache.kafka.connect.json.JsonConverter\n"
                                         "value.converter: org.apache.kafka.connect.json.JsonConverter\n",
                                         "outbox:\n  route.topic.replacement: \"" + db +
                                             "_json.${routedByValue}\"\n  table.expand.json.payload: true\n"));
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
    BOOST_REQUIRE(json.wait_streaming());
    sql.exec(outbox_rows_sql(1, 3, 2));
    const std::string result = compare_with_json(db + "_imported.Order", db + "_json.Order", 3);
    BOOST_TEST(contains(result, "equal 3"), result);
}
