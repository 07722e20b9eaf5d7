#define BOOST_TEST_MODULE payload_expansion
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/router_test_support.hpp"
#include "hex_text.hpp"
#include "java_process.hpp"
#include "random_draws.hpp"
#include "parity_differences.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace outbox::router;
using namespace outbox::router::test;

// table.expand.json.payload on generated payload texts, as Debezium's EventRouter (Jackson's
// readTree and its schema inference) and Kafka Connect's converters write them, against the
// router's EventRouter: JsonConverter without and with schemas, and StringConverter's Struct
// text. The texts are what outbox writers put in a text column: JSON objects with every kind of
// value, and what Jackson reads leniently or refuses (lone surrogate escapes, numbers past a
// double's range or 1,000 characters long, trailing text, a byte-order mark or blank before the
// document, empty and repeated field names, comments, single quotes). A record Debezium's
// converter throws on (its task fails) is counted, not compared.
//
// OUTBOX_EXPANSION_FUZZ_CASES texts (default 1500) from OUTBOX_EXPANSION_FUZZ_SEED (default 1);
// `make parity-fuzz` runs more.

namespace {

std::string random_number(Rng& rng) {
    static const std::vector<std::string> numbers = {
        "0", "-0", "1", "-1", "42", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890", "1.5", "-2.25", "0.1",
        "1.0", "0.0", "-0.0", "1e20", "1E+2", "1.0E-7", "1e308", "1e309", "1e400", "-1e400", "1e-400", "4.9e-324",
        "2.5e-324", "12.50", "100000000000000000000", "0.000001", "1e0", "5E-1"};
    if (chance(rng, 0.04)) return std::string(static_cast<std::size_t>(uniform(rng, 990, 1010)), '7');  // Jackson: 1,000 at most
    if (chance(rng, 0.03)) return "0." + std::string(static_cast<std::size_t>(uniform(rng, 990, 1010)), '1');
    if (chance(rng, 0.02)) return "1" + std::string(static_cast<std::size_t>(uniform(rng, 990, 1010)), '0') + ".5";
    if (chance(rng, 0.02)) return "1e" + std::string(static_cast<std::size_t>(uniform(rng, 990, 1010)), '0') + "1";
    return pick(rng, numbers);
}

std::string random_string(Rng& rng) {
    static const std::vector<std::string> pieces = {
        "a", "Z", " ", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u0000", "\\u001f", "\\u00e9", "\xc3\xa9", "\\ud83d\\ude00",
        "\xf0\x9f\x98\x80", "\\ud800", "\\udc00", "\\ud800x", "\\uDBFF\\uDFFF", "\\u2028", "\xe2\x80\xa8", "\\b", "\\f",
        "x-y", "\xef\xbb\xbf"};
    std::string text = "\"";
    const int n = uniform(rng, 0, 4);
    for (int i = 0; i < n; ++i) text += pick(rng, pieces);
    return text + "\"";
}

std::string random_key(Rng& rng, int i) {
    switch (uniform(rng, 0, 9)) {
        case 0: return "\"\"";
        case 1: return "\"k\"";  // repeated
        case 2: return "\"a b\"";
        case 3: return "\"\xc3\xa9t\xc3\xa9\"";
        case 4: return "\"1x\"";
        case 5: return "\"a.b\"";
        case 6: return "\"\\ud800\"";
        default: return "\"f" + std::to_string(i) + "\"";
    }
}

std::string random_value(Rng& rng, int depth);

std::string random_object(Rng& rng, int depth) {
    std::string out = "{";
    const int n = uniform(rng, 0, 4);
    for (int i = 0; i < n; ++i) out += std::string(i ? (chance(rng, 0.1) ? " , " : ",") : "") + random_key(rng, i) + ":" + random_value(rng, depth + 1);
    return out + "}";
}

std::string random_array(Rng& rng, int depth) {
    std::string out = "[";
    const int n = uniform(rng, 0, 3);
    const int shape = uniform(rng, 0, 3);
    for (int i = 0; i < n; ++i) {
        if (i) out += ",";
        out += shape == 0 ? random_number(rng) : shape == 1 ? random_string(rng) : shape == 2 ? "null" : random_value(rng, depth + 1);
    }
    return out + "]";
}

std::string random_value(Rng& rng, int depth) {
    switch (depth >= 3 ? uniform(rng, 0, 4) : uniform(rng, 0, 7)) {
        case 0: return random_number(rng);
        case 1: return random_string(rng);
        case 2: return chance(rng, 0.5) ? "true" : "false";
        case 3: return "null";
        case 4: return std::to_string(uniform(rng, -1000, 1000));
        case 5:
        case 6: return random_object(rng, depth);
        default: return random_array(rng, depth);
    }
}

std::string random_payload(Rng& rng) {
    std::string document = chance(rng, 0.9) ? random_object(rng, 0) : random_array(rng, 1);
    if (chance(rng, 0.1)) document = pick(rng, std::vector<std::string>{"{a:1}", "{'a':1}", "{\"a\":1,}", "{\"a\":NaN}",
                                                                    "{\"a\":/*c*/1}", "{\"a\":01}", "{\"a\":1.}",
                                                                    "{\"a\":\"\t\"}", "{\"a\":[1,]}", "{\"a\" 1}",
                                                                    "{\"a\":+1}", "{\"a\":.5}", "{\"a\":Infinity}"});
    if (chance(rng, 0.08)) document = pick(rng, std::vector<std::string>{"\xef\xbb\xbf", " ", "\n", "x"}) + document;
    if (chance(rng, 0.12))
        document += pick(rng, std::vector<std::string>{" trailing", " ", "\n", "}", "{}", " {\"b\":2}", "//x", ",", "x", "]"});
    return document;
}

// A run of more than 18 digits outside strings: an integer Jackson may read as a BigInteger.
bool has_big_integer_token(const std::string& text) {
    bool in_string = false;
    std::size_t run = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        run = c >= '0' && c <= '9' ? run + 1 : 0;
        if (run > 18) return true;
    }
    return false;
}

std::vector<pgoutput::RelationColumn> text_payload_columns() {
    return {{0, "id", pg_oid::kText, -1},
            {0, "aggregatetype", pg_oid::kText, -1},
            {0, "aggregateid", pg_oid::kText, -1},
            {0, "payload", pg_oid::kText, -1}};
}

TableFixture fixture(config::Converter converter, bool schemas, bool struct_text) {
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    config::RecordFormat format;
    format.value = converter;
    format.value_schemas = schemas;
    format.value_struct_text = struct_text;
    return TableFixture(text_payload_columns(), settings, format);
}

}  // namespace

BOOST_AUTO_TEST_CASE(debezium_and_the_router_expand_generated_payloads_alike) {
    const int cases = env_int("OUTBOX_EXPANSION_FUZZ_CASES", 1500);
    const int first_seed = env_int("OUTBOX_EXPANSION_FUZZ_SEED", 1);
    std::vector<std::string> payloads;
    for (int i = 0; i < cases; ++i) {
        Rng rng(static_cast<std::uint64_t>(first_seed + i) * 40503u + 11);
        payloads.push_back(random_payload(rng));
    }
    char dir_template[] = "/tmp/payload-expansion-XXXXXX";
    const std::string dir = mkdtemp(dir_template);
    {
        std::ofstream in(dir + "/in.txt");
        for (const auto& payload : payloads) in << to_hex(payload) << '\n';
    }
    const std::string command = outbox::test::java_binary() + " -cp '" + std::string(OUTBOX_DEBEZIUM_RUNTIME_LIBS) +
                                "/*' " + OUTBOX_SOURCE_DIR + "/tests/parity/ExpansionOracle.java " + dir + "/in.txt " +
                                dir + "/out.txt >" + dir + "/err.txt 2>&1";
    BOOST_REQUIRE_MESSAGE(std::system(command.c_str()) == 0,
                          "the Debezium oracle failed: " << outbox::test::tail_of_file(dir + "/err.txt", 20));
    const char* kinds[] = {"JsonConverter", "JsonConverter with schemas", "StringConverter"};
    TableFixture routers[] = {fixture(config::Converter::json, false, false), fixture(config::Converter::json, true, false),
                              fixture(config::Converter::string, false, true)};
    std::ifstream out(dir + "/out.txt");
    std::size_t compared = 0, debezium_fails = 0, failures = 0, expanded = 0, documented = 0;
    StderrCapture quiet;  // the router's warnings for payloads it keeps
    for (const auto& payload : payloads) {
        std::string line;
        BOOST_REQUIRE(std::getline(out, line));
        std::istringstream fields(line);
        std::optional<std::string> ours[3], expected[3];
        bool fails[3] = {};
        for (int k = 0; k < 3; ++k) {
            std::string theirs;
            fields >> theirs;
            fails[k] = theirs == "X";
            if (!fails[k] && theirs != "N") expected[k] = theirs == "=" ? "" : from_hex(theirs);
            const auto record = routers[k].route({text("e1"), text("x"), text("k1"), text(payload)});
            if (record.value) ours[k] = std::string(*record.value);
        }
        // Where Debezium infers no schema (it keeps the text, and so does the router with
        // schemas), the router expands all the same as JSON without schemas: arrays mixing types,
        // a document after blanks (docs/configuration.md).
        const bool kept_with_schemas = !fails[1] && ours[1] == expected[1] && expected[1] &&
                                       expected[1]->find(R"({"schema":{"type":"string")") == 0;
        for (int k = 0; k < 3; ++k) {
            if (fails[k]) {
                ++debezium_fails;
                continue;
            }
            ++compared;
            if (k == 0 && expected[k] && expected[k]->size() && (*expected[k])[0] != '"') ++expanded;
            if (k == 0 && ours[k] != expected[k] && kept_with_schemas && ours[k] && ours[k]->size() &&
                (*ours[k])[0] != '"') {
                ++documented;
                continue;
            }
            // Merged array objects list their fields in another order (Debezium: a hash set's).
            if (ours[k] != expected[k] && ours[k] && expected[k]) {
                const auto known = outbox::test::documented_differences(*ours[k], *expected[k], {k < 2, k == 1, true});
                if (known && known->count(outbox::test::kMergedFieldOrder) == known->size() && !known->empty()) {
                    ++documented;
                    continue;
                }
            }
            // An integer past 64 bits: Debezium's JsonConverter fails, and its Struct text is
            // Jackson's JSON of the document; the router keeps the payload (docs/configuration.md).
            if (k == 2 && ours[k] == payload && fails[0] && has_big_integer_token(payload)) {
                ++documented;
                continue;
            }
            if (ours[k] != expected[k]) {
                ++failures;
                BOOST_ERROR(kinds[k] << ", payload '" << payload << "':\n  router:   " << ours[k].value_or("<null>")
                                     << "\n  Debezium: " << expected[k].value_or("<null>"));
            }
        }
    }
    const std::string summary = "payload expansion: " + std::to_string(payloads.size()) + " payloads, " +
                                std::to_string(compared) + " values compared (" + std::to_string(expanded) +
                                " expanded under JsonConverter), " + std::to_string(documented) +
                                " differing as documented, " + std::to_string(failures) + " differences, " +
                                std::to_string(debezium_fails) + " values Debezium's converter fails on";
    BOOST_TEST_MESSAGE(summary);
    std::fprintf(stdout, "%s\n", summary.c_str());
    BOOST_TEST(failures == 0u);
    BOOST_TEST(compared > 0u);
    std::system(("rm -rf " + dir).c_str());
}
