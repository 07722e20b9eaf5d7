#define BOOST_TEST_MODULE parity_fuzz
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>

#include "debezium_connect.hpp"
#include "harness.hpp"
#include "parity_generator.hpp"
#include "pg_server.hpp"
#include "router_process.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// The differential fuzzer: from seeds, outbox tables with random columns, EventRouter options and
// rows (generated in tests/support/parity_generator.cpp) run through Debezium 3.6 on Kafka Connect
// and through the router, and every record is compared: partition, key, value and headers, byte
// for byte. Each record is matched by its id header. A difference is either one
// docs/configuration.md documents (classified below and counted) or a failure.
//
// OUTBOX_PARITY_FUZZ_SEEDS (default 6) cases from OUTBOX_PARITY_FUZZ_FIRST_SEED (default 1), each
// with OUTBOX_PARITY_FUZZ_ROWS rows (default 8); `make parity-fuzz SEEDS=N` runs more. The cases
// share kConnectors connectors (one Connect JVM), each with converters and column modes from the
// seed of its first case.

namespace {

constexpr int kConnectors = 3;

int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value && *value ? std::atoi(value) : fallback;
}

using Json = nlohmann::ordered_json;

// A JsonConverter schema's struct fields sorted by name, at every depth.
nlohmann::json fields_sorted(nlohmann::json value) {
    if (!value.is_structured()) return value;
    for (auto& element : value) element = fields_sorted(element);
    if (value.is_object() && value.contains("fields") && value["fields"].is_array())
        std::sort(value["fields"].begin(), value["fields"].end(), [](const nlohmann::json& l, const nlohmann::json& r) {
            return l.value("field", "") < r.value("field", "");
        });
    return value;
}

// The same JSON, but for the order of object fields (and of a schema's struct fields): equal once
// parsed, and the same characters.
bool same_json_unordered(std::string a, std::string b) {
    const auto x = fields_sorted(nlohmann::json::parse(a, nullptr, false));
    const auto y = fields_sorted(nlohmann::json::parse(b, nullptr, false));
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return !x.is_discarded() && !y.is_discarded() && x == y && a == b;
}

// The same JSON, but for how a double is written (Java 17's Double.toString writes some longer
// than the shortest form the router writes, which Java 19 and later write).
bool same_json_numbers(const nlohmann::json& x, const nlohmann::json& y) {
    if (x.is_number() && y.is_number())  // a real's text read back as a float, or a double's
        return x.get<double>() == y.get<double>() || static_cast<float>(x.get<double>()) == static_cast<float>(y.get<double>());
    if (x.is_string() && y.is_string()) {
        const auto& a = x.get_ref<const std::string&>();
        const auto& b = y.get_ref<const std::string&>();
        if (a == b) return true;
        char* end_a = nullptr;
        char* end_b = nullptr;
        const double da = std::strtod(a.c_str(), &end_a), db = std::strtod(b.c_str(), &end_b);
        return *end_a == 0 && *end_b == 0 && !a.empty() && !b.empty() &&
               (da == db || static_cast<float>(da) == static_cast<float>(db));
    }
    if (x.type() != y.type() || x.size() != y.size()) return false;
    if (x.is_object()) {
        for (auto it = x.begin(); it != x.end(); ++it)
            if (!y.contains(it.key()) || !same_json_numbers(*it, y.at(it.key()))) return false;
        return true;
    }
    if (x.is_array()) {
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!same_json_numbers(x[i], y[i])) return false;
        return true;
    }
    return x == y;
}

bool same_doubles(const std::string& a, const std::string& b) {
    const auto x = nlohmann::json::parse(a, nullptr, false);
    const auto y = nlohmann::json::parse(b, nullptr, false);
    if (!x.is_discarded() && !y.is_discarded()) return same_json_numbers(x, y);
    return same_json_numbers(nlohmann::json(a), nlohmann::json(b));
}

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
        for (const auto& c : cases) sql.exec("CREATE SCHEMA " + c.schema + "; CREATE TABLE " + c.schema + ".outbox (" + c.columns + ")");

        std::vector<std::map<std::string, std::string>> connector_files;
        for (int k = 0; k < n_connectors; ++k) {
            const auto& connector = connectors[static_cast<std::size_t>(k)];
            auto p = postgres_connector(connector.name, db, connector.name);
            for (const auto& [key, value] : connector.connect_properties()) p[key] = value;
            std::string tables, transforms;
            std::string outbox = "outbox:\n  table.overrides:\n";
            for (std::size_t i = 0; i < cases.size(); ++i) {
                if (connector_of[i] != k) continue;
                const auto& c = cases[i];
                const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ",") + item; };
                add(tables, c.schema + "\\.outbox");
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
        for (const auto& c : cases)
            for (const auto& statement : c.statements) sql.exec(statement);
    }
};

// A difference between Debezium's record and the router's, and the documented reason if any.
struct Difference {
    std::string field, ours, theirs, known;  // known: empty when nothing documents it
};

std::vector<Difference> compare(const ConsumedRecord& ours, const ConsumedRecord& theirs) {
    std::vector<Difference> found;
    const auto check = [&](const std::string& field, const std::string& a, const std::string& b) {
        if (a == b) return;
        std::string known;
        if (same_json_unordered(a.size() > 2 ? a.substr(1, a.size() - 2) : a, b.size() > 2 ? b.substr(1, b.size() - 2) : b))
            known = "merged object fields in another order (Debezium: a Java hash set's order)";
        else if (a.size() > 2 && b.size() > 2 && same_doubles(a.substr(1, a.size() - 2), b.substr(1, b.size() - 2)))
            known = "a float or double Java 17 writes longer (the router writes Java 19's shortest text)";
        found.push_back({field, a, b, known});
    };
    if (ours.partition != theirs.partition)
        found.push_back({"partition", std::to_string(ours.partition), std::to_string(theirs.partition), ""});
    check("key", shown(ours.key), shown(theirs.key));
    check("value", shown(ours.value), shown(theirs.value));
    if (ours.headers.size() != theirs.headers.size()) {
        check("headers", headers_text(ours), headers_text(theirs));
        return found;
    }
    for (std::size_t i = 0; i < ours.headers.size(); ++i) {
        const auto& [name, value] = ours.headers[i];
        if (name != theirs.headers[i].first) {
            check("headers", headers_text(ours), headers_text(theirs));
            return found;
        }
        if (name != "__debezium.context.runId") check("header " + name, shown(value), shown(theirs.headers[i].second));
    }
    return found;
}

}  // namespace

BOOST_AUTO_TEST_CASE(debezium_and_the_router_write_the_same_records_for_generated_cases) {
    Run run;
    std::size_t rows = 0, identical = 0, unexplained = 0;
    std::map<std::string, std::size_t> known;
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
        const auto& c = run.cases[i];
        const auto& connector = run.connectors[static_cast<std::size_t>(run.connector_of[i])];
        BOOST_TEST_CONTEXT(c.describe() << "\n  connector " << connector.describe()) {
            const auto ours = read_topic(kafka_servers(), c.topic, c.records, 60s);
            BOOST_TEST(ours.size() == c.records, "the router's records");
            // Debezium skips (errors.tolerance all) a record its task fails on: wait for all, not longer.
            const auto theirs = read_topic(kafka_servers(), "dbz." + connector.name + "." + c.topic, c.records, 20s);
            std::map<std::string, const ConsumedRecord*> by_id;
            for (const auto& record : theirs) by_id[shown(record.header("id"))] = &record;
            for (const auto& record : ours) {
                ++rows;
                const auto id = shown(record.header("id"));
                const auto match = by_id.find(id);
                if (match == by_id.end()) {
                    // Documented only where the payload is expanded (a top-level array, an integer
                    // past 64 bits, values that do not fit the merged schema).
                    const bool expands = std::any_of(c.options.begin(), c.options.end(), [](const auto& o) {
                        return o.first == "table.expand.json.payload";
                    });
                    if (!expands) {
                        ++unexplained;
                        BOOST_ERROR("seed " << c.seed << " id " << id << ": Debezium wrote no record; the router wrote value "
                                            << shown(record.value));
                        continue;
                    }
                    const std::string reason =
                        "Debezium's task failed on the expanded payload (record skipped under errors.tolerance all)";
                    ++known[reason];
                    BOOST_TEST_MESSAGE("seed " << c.seed << " id " << id << ": " << reason << "; the router wrote value "
                                               << shown(record.value));
                    continue;
                }
                const auto differences = compare(record, *match->second);
                if (differences.empty()) ++identical;
                for (const auto& d : differences) {
                    if (d.known.empty()) {
                        ++unexplained;
                        BOOST_ERROR("seed " << c.seed << " id " << id << " " << d.field << " differs:\n  router:   "
                                            << d.ours << "\n  Debezium: " << d.theirs);
                    } else {
                        ++known[d.known];
                        BOOST_TEST_MESSAGE("seed " << c.seed << " id " << id << " " << d.field << " (" << d.known
                                                   << "):\n  router:   " << d.ours << "\n  Debezium: " << d.theirs);
                    }
                }
            }
        }
    }
    std::string summary = "parity fuzz: " + std::to_string(run.cases.size()) + " cases, " + std::to_string(rows) +
                          " records, " + std::to_string(identical) + " identical, " + std::to_string(unexplained) +
                          " unexplained differences";
    for (const auto& [reason, count] : known) summary += "; " + std::to_string(count) + " known: " + reason;
    BOOST_TEST_MESSAGE(summary);
    std::fprintf(stderr, "%s\n", summary.c_str());
    BOOST_TEST(unexplained == 0u);
}
