#define BOOST_TEST_MODULE parity_fuzz
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "debezium_connect.hpp"
#include "harness.hpp"
#include "parity_differences.hpp"
#include "parity_generator.hpp"
#include "pg_server.hpp"
#include "random_draws.hpp"
#include "router_process.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// The differential fuzzer: from seeds, outbox tables with random columns, EventRouter options and
// rows (generated in tests/support/parity_generator.cpp) run through Debezium 3.6 on Kafka Connect
// and through the router, and every record is compared: partition, key, value and headers, byte
// for byte. Each record is matched by its id header. A difference is either one
// docs/configuration.md documents (recognised by tests/support/parity_differences.hpp, and
// counted) or a failure.
//
// OUTBOX_PARITY_FUZZ_SEEDS (default 6) cases from OUTBOX_PARITY_FUZZ_FIRST_SEED (default 1), each
// with OUTBOX_PARITY_FUZZ_ROWS rows (default 8); `make parity-fuzz SEEDS=N` runs more. The cases
// share kConnectors connectors (one Connect JVM), each with converters and column modes from the
// seed of its first case.

namespace {

constexpr int kConnectors = 3;
constexpr const char* kExtensionArrays[] = {" hstore[]", " citext[]", " ltree[]", " timetz[]"};

using Json = nlohmann::ordered_json;

std::string shown(const std::optional<std::string>& bytes) { return bytes ? "'" + *bytes + "'" : "null"; }

std::string headers_text(const ConsumedRecord& record) {
    std::string text;
    for (const auto& [name, value] : record.headers)
        text += name + "=" + (name == "__debezium.context.runId" ? std::string("<run id>") : shown(value)) + " ";
    return text;
}

struct Run {
    std::string db = postgres().create_database("fuzz");
    Sql sql{postgres().conninfo(db)};
    std::vector<FuzzConnector> connectors;
    std::vector<FuzzCase> cases;
    std::vector<int> connector_of;  // per case
    std::unique_ptr<DebeziumConnect> debezium;
    std::vector<std::unique_ptr<RouterProcess>> routers;
    std::vector<std::map<std::string, std::string>> payloads;  // per case: id → the payload's text (not NULL)
    const std::int64_t started_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch()).count();

    Run() {
        const int seeds = env_int("OUTBOX_PARITY_FUZZ_SEEDS", 6);
        const int first = env_int("OUTBOX_PARITY_FUZZ_FIRST_SEED", 1);
        const int rows = env_int("OUTBOX_PARITY_FUZZ_ROWS", 8);
        const int n_connectors = std::min(kConnectors, std::max(seeds, 1));
        for (int k = 0; k < n_connectors; ++k)
            connectors.push_back(generate_connector(static_cast<std::uint64_t>(first + k), "fzc" + std::to_string(k)));
        for (int s = first; s < first + seeds; ++s) {
            const int k = (s - first) % n_connectors;
            cases.push_back(generate_case(s, connectors[static_cast<std::size_t>(k)], rows));
            connector_of.push_back(k);
        }
        sql.exec("CREATE EXTENSION hstore; CREATE EXTENSION citext; CREATE EXTENSION ltree");
        for (const auto& c : cases)
            sql.exec("CREATE SCHEMA " + c.schema + "; " + c.setup + "CREATE TABLE " + c.schema + ".outbox (" + c.columns + ")");

        std::vector<std::map<std::string, std::string>> connector_files;
        for (int k = 0; k < n_connectors; ++k) {
            const auto& connector = connectors[static_cast<std::size_t>(k)];
            auto p = postgres_connector(connector.name, db, connector.name);
            for (const auto& [key, value] : connector.connect_properties()) p[key] = value;
            std::string tables, transforms, key_columns;
            std::string outbox = "outbox:\n  table.overrides:\n";
            for (std::size_t i = 0; i < cases.size(); ++i) {
                if (connector_of[i] != k) continue;
                const auto& c = cases[i];
                const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ",") + item; };
                add(tables, c.schema + "\\.outbox");
                if (!c.key_columns.empty())
                    key_columns += (key_columns.empty() ? "" : ";") + c.schema + ".outbox:" + c.key_columns;
                add(transforms, c.schema);
                p["transforms." + c.schema + ".type"] = "io.debezium.transforms.outbox.EventRouter";
                p["transforms." + c.schema + ".predicate"] = c.schema;
                p["predicates." + c.schema + ".type"] = "org.apache.kafka.connect.transforms.predicates.TopicNameMatches";
                p["predicates." + c.schema + ".pattern"] = connector.name + "\\." + c.schema + "\\.outbox";
                outbox += "    " + c.schema + ".outbox:\n";
                for (const auto& [option, value] : c.options) {
                    p["transforms." + c.schema + "." + option] = value;
                    outbox += "      " + option + ": " + Json(value).dump() + "\n";
                }
            }
            if (tables.empty()) continue;
            p["table.include.list"] = tables;
            if (!key_columns.empty()) {
                p["message.key.columns"] = key_columns;
                outbox.insert(std::string("outbox:\n").size(), "  message.key.columns: " + Json(key_columns).dump() + "\n");
            }
            p["predicates"] = transforms;
            p["transforms"] = transforms + ",prefix";
            p["transforms.prefix.type"] = "org.apache.kafka.connect.transforms.RegexRouter";
            p["transforms.prefix.regex"] = "(.*)";
            p["transforms.prefix.replacement"] = "dbz." + connector.name + ".$1";
            p["message.prefix.include.list"] = "none";
            connector_files.push_back(p);

            std::string yaml = router_config(db, "  table.include.list: " + std::regex_replace(tables, std::regex("\\\\\\."), ".") + "\n",
                                             connector.router_yaml(), outbox);
            for (const std::string key : {"slot.name: ", "publication.name: "}) {
                const auto at = yaml.find(key + db + "\n");
                yaml.replace(at + key.size(), db.size(), "router_" + connector.name);
            }
            routers.push_back(std::make_unique<RouterProcess>(work_dir(), yaml));
        }
        debezium = std::make_unique<DebeziumConnect>(DebeziumConnectSpec{
            work_dir() + "/debezium",
            {{"bootstrap.servers", kafka_servers()},
             {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
             {"value.converter", "org.apache.kafka.connect.storage.StringConverter"}},
            connector_files});
        for (const auto& router : routers) BOOST_REQUIRE_MESSAGE(router->wait_streaming(), router->output());
        debezium->wait_until_ready(
            [&] {
                return sql.scalar("SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name LIKE 'fzc%'") ==
                       std::to_string(connector_files.size());
            },
            "every connector streaming from its slot");
        for (const auto& c : cases) {
            auto& texts = payloads.emplace_back();
            for (const auto& statement : c.statements) {
                sql.exec(statement);
                // After each statement: a primary-key UPDATE moves a row to another id.
                for (const auto& row :
                     sql.rows("SELECT id::text, payload::text FROM " + c.schema + ".outbox WHERE payload IS NOT NULL"))
                    texts.emplace(row.at(0), row.at(1));
            }
        }
    }
};

// A difference between Debezium's record and the router's, and the documented reasons if any.
struct Difference {
    std::string field, ours, theirs;
    std::optional<std::set<std::string_view>> known;  // nothing when not all of it is documented
};

// An event timestamp of 0: librdkafka reads it as "now" and has no way to send 0.
constexpr std::string_view kZeroTimestamp = "an event timestamp of 0 (the router's producer writes the time of producing)";

// `produced_after`: when the run began; a record timestamp from then on is the time of producing
// (the generator's event timestamps end in 2019).
std::vector<Difference> compare(const ConsumedRecord& ours, const ConsumedRecord& theirs, const ParityContext& context,
                                bool event_timestamp, std::int64_t produced_after) {
    std::vector<Difference> found;
    if (event_timestamp && ours.timestamp_ms != theirs.timestamp_ms &&
        !(ours.timestamp_ms >= produced_after && theirs.timestamp_ms >= produced_after)) {
        std::optional<std::set<std::string_view>> known;
        if (theirs.timestamp_ms == 0 && ours.timestamp_ms >= produced_after) known = std::set<std::string_view>{kZeroTimestamp};
        found.push_back({"timestamp", std::to_string(ours.timestamp_ms), std::to_string(theirs.timestamp_ms), known});
    }
    const auto check = [&](const std::string& field, const std::optional<std::string>& a, const std::optional<std::string>& b) {
        if (a == b) return;
        std::optional<std::set<std::string_view>> known;
        if (a && b) known = documented_differences(*a, *b, context);
        found.push_back({field, shown(a), shown(b), known});
    };
    if (ours.partition != theirs.partition)
        found.push_back({"partition", std::to_string(ours.partition), std::to_string(theirs.partition), std::nullopt});
    check("key", ours.key, theirs.key);
    check("value", ours.value, theirs.value);
    bool same_names = ours.headers.size() == theirs.headers.size();
    for (std::size_t i = 0; same_names && i < ours.headers.size(); ++i) same_names = ours.headers[i].first == theirs.headers[i].first;
    if (!same_names) {
        found.push_back({"headers", headers_text(ours), headers_text(theirs), std::nullopt});
        return found;
    }
    for (std::size_t i = 0; i < ours.headers.size(); ++i) {
        const auto& [name, value] = ours.headers[i];
        if (name != "__debezium.context.runId") check("header " + name, value, theirs.headers[i].second);
    }
    return found;
}

// The id as the generator wrote it, from the id header as header.converter wrote it.
std::string written_id(const std::optional<std::string>& header, const FuzzConnector& connector) {
    if (!header || connector.header_converter.find("JsonConverter") == std::string::npos) return header.value_or("");
    auto json = nlohmann::json::parse(*header, nullptr, false);
    if (connector.header_schemas && json.is_object()) json = json["payload"];
    return json.is_string() ? json.get<std::string>() : json.dump();
}

}  // namespace

BOOST_AUTO_TEST_CASE(debezium_and_the_router_write_the_same_records_for_generated_cases) {
    Run run;
    std::size_t rows = 0, identical = 0, documented = 0, unexplained = 0, key_changes = 0;
    std::map<std::string, std::size_t> known;
    std::vector<std::vector<ConsumedRecord>> router_records;
    for (const auto& c : run.cases) router_records.push_back(read_topic(kafka_servers(), c.topic, c.records, 60s));
    // Debezium skips (errors.tolerance all) a record its task fails on: wait for all, not longer,
    // and 20 s for all cases together (its connectors work on them at the same time).
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
        const auto& c = run.cases[i];
        const auto& connector = run.connectors[static_cast<std::size_t>(run.connector_of[i])];
        BOOST_TEST_CONTEXT(c.describe() << "\n  connector " << connector.describe()) {
            const auto& ours = router_records[i];
            BOOST_TEST(ours.size() == c.records, "the router's records");
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            const auto theirs = read_topic(kafka_servers(), "dbz." + connector.name + "." + c.topic, c.records,
                                           std::max(left, std::chrono::milliseconds(2000)));
            std::map<std::string, const ConsumedRecord*> by_id;
            for (const auto& record : theirs) by_id[shown(record.header("id"))] = &record;
            for (const auto& record : ours) {
                ++rows;
                if (record.header("__debezium.oldkey")) ++key_changes;
                const auto id = shown(record.header("id"));
                const auto match = by_id.find(id);
                if (match == by_id.end()) {
                    // Documented only where the payload is expanded and holds what Debezium's task
                    // fails on (its record skipped under errors.tolerance all).
                    const auto& texts = run.payloads[i];
                    const auto payload = texts.find(written_id(record.header("id"), connector));
                    const auto reason = c.expands() && payload != texts.end()
                                            ? documented_task_failure(payload->second, c.has_envelope(), c.keeps_nulls())
                                            : std::nullopt;
                    if (!reason) {
                        ++unexplained;
                        BOOST_ERROR("seed " << c.seed << " id " << id << ": Debezium wrote no record; the router wrote value "
                                            << shown(record.value));
                        continue;
                    }
                    ++known[std::string(*reason)];
                    BOOST_TEST_MESSAGE("seed " << c.seed << " id " << id << ": " << *reason << "; the router wrote value "
                                               << shown(record.value));
                    continue;
                }
                const ParityContext context{connector.value_converter.find("JsonConverter") != std::string::npos,
                                            connector.value_schemas, c.expands()};
                const auto differences = compare(record, *match->second, context, c.event_timestamp, run.started_ms);
                if (differences.empty()) ++identical;
                else if (std::all_of(differences.begin(), differences.end(), [](const Difference& d) { return d.known.has_value(); }))
                    ++documented;
                for (const auto& d : differences) {
                    if (!d.known) {
                        ++unexplained;
                        BOOST_ERROR("seed " << c.seed << " id " << id << " " << d.field << " differs:\n  router:   "
                                            << d.ours << "\n  Debezium: " << d.theirs);
                        continue;
                    }
                    std::string reasons;
                    for (const auto reason : *d.known) {
                        ++known[std::string(reason)];
                        reasons += (reasons.empty() ? "" : "; ") + std::string(reason);
                    }
                    BOOST_TEST_MESSAGE("seed " << c.seed << " id " << id << " " << d.field << " (" << reasons
                                               << "):\n  router:   " << d.ours << "\n  Debezium: " << d.theirs);
                }
            }
        }
    }
    const auto toasted = std::count_if(run.cases.begin(), run.cases.end(), [](const FuzzCase& c) {
        return std::any_of(c.statements.begin(), c.statements.end(),
                           [](const std::string& s) { return s.find("STORAGE EXTERNAL") != std::string::npos; });
    });
    const auto extension_arrays = std::count_if(run.cases.begin(), run.cases.end(), [](const FuzzCase& c) {
        return std::any_of(std::begin(kExtensionArrays), std::end(kExtensionArrays),
                           [&](const char* type) { return c.columns.find(type) != std::string::npos; });
    });
    std::string summary = "parity fuzz: " + std::to_string(run.cases.size()) + " cases (" + std::to_string(toasted) +
                          " moving a row whose payload is stored out of line, " + std::to_string(extension_arrays) +
                          " with an array of hstore, citext, ltree or timetz), " + std::to_string(rows) +
                          " records, " + std::to_string(identical) + " identical, " + std::to_string(documented) +
                          " differing only as documented, " + std::to_string(unexplained) + " undocumented differences (" + std::to_string(key_changes) +
                          " records of a primary-key UPDATE among them)";
    for (const auto& [reason, count] : known) summary += "; " + std::to_string(count) + " x " + reason;
    BOOST_TEST_MESSAGE(summary);
    std::fprintf(stderr, "%s\n", summary.c_str());
    BOOST_TEST(unexplained == 0u);
}
