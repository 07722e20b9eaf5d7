#define BOOST_TEST_MODULE cloud_events_sdk
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "outbox/config/config.hpp"
#include "router_test_support.hpp"

// The CloudEvents Python SDK (cloudevents on PyPI, pinned in tests/platform/requirements.txt;
// its strict v1 core) reads every event the router makes, in both modes, and finds the
// attributes and data the outbox rows hold (tests/platform/read_cloud_events.py).

using namespace outbox;
using namespace outbox::router;
using namespace outbox::router::test;

namespace {

struct Row {
    std::string id, aggregatetype, aggregateid, type, payload;
    std::int64_t commit_time_ms;
    std::string time;  // as the SDK reads it back
};

const std::vector<Row> kRows = {
    {"59a42efd-b015-44a9-9dde-cb36d9002425", "User", "10711fa5", "UserCreated",
     R"({"someField1": "some value 1", "someField2": 7005})", 1'700'000'000'123, "2023-11-14T22:13:20.123Z"},
    {"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "Order", "order 7 / ü", "Order\"Placed\\",
     R"({"name": "Zoë \"q\" \\ 😀", "n": [1, 2, 3], "nested": {"a": true, "b": {"c": -1.5}}, "e": ""})", 951'782'400'007,
     "2000-02-29T00:00:00.007Z"},
    {"ab", "Order", "k", "Ünïcode.type", R"({"big": 9223372036854775807, "neg": -0.5e-3, "t": "\t\n"})", 0,
     "1970-01-01T00:00:00.000Z"},
};

config::RecordFormat format_for(config::CloudEventsMode mode, bool data_schemas) {
    auto format = config::parse_config("postgres:\n  conninfo: host=db\nkafka:\n  bootstrap.servers: k:9092\n"
                                       "topic.prefix: shop\n"
                                       "value.converter: io.debezium.converters.CloudEventsConverter\n"
                                       "value.converter.metadata.source: header,id:header,type:header\n"
                                       "value.converter.extension.attributes.enable: false\n"
                                       "value.converter.json.schemas.enable: " +
                                           std::string(data_schemas ? "true" : "false") +
                                           "\n"
                                           "outbox:\n  table.fields.additional.placement: type:header:type\n",
                                       "router.yaml")
                      .format;
    format.cloud_events.mode = mode;
    return format;
}

std::string text_of(std::optional<std::string_view> bytes) { return bytes ? std::string(*bytes) : std::string(); }

// Every row in both modes, headers-only (an expanded payload) and with an envelope placement,
// with and without data schemas.
nlohmann::json records() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto mode : {config::CloudEventsMode::structured, config::CloudEventsMode::binary}) {
        for (const int variant : {0, 1, 2, 3}) {
            const bool envelope = variant & 1;
            const bool data_schemas = variant & 2;
            config::OutboxSettings settings;
            settings.expand_json_payload = true;
            settings.additional_fields = {{"type", config::Placement::header, "type"}};
            if (envelope) settings.additional_fields.push_back({"type", config::Placement::envelope, "eventType"});
            TableFixture fixture(debezium_columns(), settings, format_for(mode, data_schemas));
            for (const auto& row : kRows) {
                const auto record = fixture.route(
                    {text(row.id), text(row.aggregatetype), text(row.aggregateid), text(row.type), text(row.payload)},
                    {0x16B3748, row.commit_time_ms, 7});
                nlohmann::json headers = nlohmann::json::array();
                for (const auto& h : record.headers) headers.push_back({std::string(h.name), text_of(h.value)});
                nlohmann::json data = nlohmann::json::parse(row.payload);
                if (envelope) data = {{"payload", data}, {"eventType", row.type}};
                const bool structured = mode == config::CloudEventsMode::structured;
                out.push_back({{"mode", structured ? "structured" : "binary"},
                               {"key", text_of(record.key)},
                               {"value", text_of(record.value)},
                               {"headers", headers},
                               {"expect",
                                {{"id", row.id},
                                 {"source", "/debezium/postgresql/shop"},
                                 {"type", row.type},
                                 {"subject", structured ? nlohmann::json() : nlohmann::json(row.aggregateid)},
                                 {"time", row.time},
                                 {"data", data},
                                 {"data_schema", data_schemas}}}});
            }
        }
    }
    // With extension attributes (Debezium's default): binary mode's ce_iodebezium* headers are
    // read as extensions; in structured mode Debezium's own attribute name iodebeziumtxId (kept
    // by the router, byte for byte) is not a valid CloudEvents name, and the strict SDK refuses
    // the event, as it refuses Debezium's.
    for (const auto mode : {config::CloudEventsMode::structured, config::CloudEventsMode::binary}) {
        auto format = format_for(mode, false);
        format.cloud_events.extension_attributes = true;
        format.cloud_events.database = "shop_db";
        config::OutboxSettings settings;
        settings.expand_json_payload = true;
        settings.additional_fields = {{"type", config::Placement::header, "type"}};
        TableFixture fixture(debezium_columns(), settings, format);
        for (const auto& row : kRows) {
            const auto record = fixture.route(
                {text(row.id), text(row.aggregatetype), text(row.aggregateid), text(row.type), text(row.payload)},
                {0x16B3748, row.commit_time_ms, 7, row.commit_time_ms * 1000 + 456, 0x16B3700, 0x16B3600});
            nlohmann::json headers = nlohmann::json::array();
            for (const auto& h : record.headers) headers.push_back({std::string(h.name), text_of(h.value)});
            const bool structured = mode == config::CloudEventsMode::structured;
            nlohmann::json expect = {{"id", row.id},
                                     {"source", "/debezium/postgresql/shop"},
                                     {"type", row.type},
                                     {"subject", structured ? nlohmann::json() : nlohmann::json(row.aggregateid)},
                                     {"time", row.time},
                                     {"data", nlohmann::json::parse(row.payload)},
                                     {"data_schema", false}};
            if (structured) {
                expect["refused"] = "iodebeziumtxId";
            } else {
                expect["extensions"] = {{"iodebeziumop", "c"},
                                        {"iodebeziumdb", "shop_db"},
                                        {"iodebeziumschema", "public"},
                                        {"iodebeziumtxid", "7"},
                                        {"iodebeziumlsn", std::to_string(0x16B3700)},
                                        {"iodebeziumtsus", std::to_string(row.commit_time_ms * 1000 + 456)}};
            }
            out.push_back({{"mode", structured ? "structured" : "binary"},
                           {"key", text_of(record.key)},
                           {"value", text_of(record.value)},
                           {"headers", headers},
                           {"expect", expect}});
        }
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_cloudevents_sdk_reads_every_event_in_both_modes) {
    const auto recorded = records();
    BOOST_TEST(recorded.size() == 30u);
    const auto folder = std::filesystem::temp_directory_path() / ("cloud-events-sdk-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    const auto file = folder / "records.json";
    std::ofstream(file) << recorded.dump();
    const std::string command = std::string(OUTBOX_PLATFORM_PYTHON) + " " + OUTBOX_SOURCE_DIR +
                                "/tests/platform/read_cloud_events.py " + file.string() + " 2>&1";
    std::string output;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[4096];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
        const int status = ::pclose(pipe);
        BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), output);
    } else {
        BOOST_FAIL("cannot run " + command);
    }
    std::filesystem::remove_all(folder);
    BOOST_TEST(output.find("read 30 events, 0 differences") != std::string::npos, output);
}
