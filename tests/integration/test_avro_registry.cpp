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

// Confluent's client decodes the Avro topic; the JSON-with-schemas topic holds the same rows.
std::string compare_with_json(const std::string& avro_topic, const std::string& json_topic, int count) {
    return run(confluent_python() + " " + records_script() + " compare " + kafka_servers() + " " +
               schema_registry().url() + " " + avro_topic + " " + json_topic + " " + std::to_string(count))
        .second;
}

std::string avro_converter(const std::string& side) {
    return side + ".converter: io.confluent.connect.avro.AvroConverter\n" + side +
           ".converter.schema.registry.url: \"" + schema_registry().url() + "\"\n";
}

// Two routers over the same rows, each with its own slot: JsonConverter with schemas to
// json.<type>, AvroConverter to avro.<type>.
struct TwoRouters {
    std::unique_ptr<RouterProcess> json;
    std::unique_ptr<RouterProcess> avro;

    TwoRouters(const std::string& db, const std::string& outbox, const std::string& top) {
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
            work_dir(), router_config_for(conninfo, db + "_avro", "", top + avro_converter("key") + avro_converter("value"),
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
    const auto [status, lines] = run(confluent_python() + " " + records_script() + " old-reader " + kafka_servers() +
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
