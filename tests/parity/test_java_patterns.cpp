#define BOOST_TEST_MODULE java_patterns
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hex_text.hpp"
#include "java_process.hpp"
#include "random_draws.hpp"
#include "outbox/router/topic_router.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::test;
using outbox::router::TopicRouter;

// route.topic.regex as Java reads it: random Java patterns (constructs Debezium users write and
// the ones where Java and PCRE2 differ: POSIX and Unicode classes, nested classes and
// intersections, \Q...\E, (?i) on non-ASCII letters, line terminators, quantifiers, invalid
// syntax) and random route-by values go through java.util.regex itself (Kafka's RegexRouter:
// matches(), then replaceFirst) and through the router's TopicRouter. Java refusing a pattern
// the router takes, or a different topic, fails; the router refusing a pattern Java takes is
// allowed (it names the construct at load) and counted.
//
// OUTBOX_PATTERN_FUZZ_CASES patterns (default 3000) from OUTBOX_PATTERN_FUZZ_SEED (default 1),
// 8 values each; `make parity-fuzz` runs more.

namespace {

// Characters of route-by values and pattern literals: ASCII letters of both cases, the ones
// Unicode folds onto ASCII (Kelvin sign, long s), Latin-1 and other letters, digits,
// punctuation, line terminators and a character outside the BMP.
const std::vector<std::string> kChars = {
    "a", "b", "c", "q", "x", "z", "A", "B", "C", "Q", "X", "K", "k", "s", "S", "0", "1", "9", "_", "-", ".", ":", " ",
    "\t", "\n", "\r", "$", "\\", "&", "[", "]", "^", "\xc3\xa4", "\xc3\x84", "\xc3\xa9", "\xc3\x9f", "\xe2\x84\xaa",
    "\xc5\xbf", "\xce\xa9", "\xcf\x89", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc2\x85", "\xe2\x80\xa8", "\xc2\xa0"};

const std::vector<std::string> kEscapes = {
    "\\d", "\\D", "\\s", "\\S", "\\w", "\\W", "\\h", "\\H", "\\v", "\\V", "\\t", "\\n", "\\.", "\\-", "\\$", "\\\\",
    "\\x41", "\\x{e4}", "\\u00C4", "\\u212A", "\\0101", "\\cA", "\\&", "\\[", "\\]", "\\^", "\\e", "\\a", "\\f",
    "\\uD83D\\uDE00", "\\x{1F600}", "\\R"};

const std::vector<std::string> kProperties = {
    "\\p{Upper}",  "\\p{Lower}", "\\p{Alpha}",  "\\p{Alnum}", "\\p{Punct}", "\\p{Graph}", "\\p{Print}",
    "\\p{Blank}",  "\\p{XDigit}", "\\p{Space}", "\\p{Cntrl}", "\\p{ASCII}", "\\p{Digit}", "\\p{L}",
    "\\p{Lu}",     "\\p{Ll}",    "\\p{IsL}",    "\\p{IsLu}",  "\\p{N}",     "\\p{Nd}",    "\\P{L}",
    "\\pL",        "\\PN",       "\\p{LC}",     "\\p{L1}",    "\\p{gc=Lu}", "\\P{Upper}", "\\p{IsLatin}",
    "\\p{InGreek}", "\\p{javaLowerCase}", "\\p{IsAlphabetic}", "\\p{lower}", "\\p{P}", "\\p{Zs}", "\\p{all}"};

std::string random_class(Rng& rng, int depth);

std::string class_item(Rng& rng, int depth) {
    switch (uniform(rng, 0, 9)) {
        case 0: return pick(rng, kChars);
        case 1: return pick(rng, std::vector<std::string>{"a-z", "A-Z", "0-9", "a-f", "\xc3\xa0-\xc3\xbf", "A-z", "!-/", "\\x00-\\x7f", "K-k"});
        case 2: return pick(rng, kEscapes);
        case 3: return pick(rng, kProperties);
        case 4: return depth < 2 ? random_class(rng, depth + 1) : "x";
        case 5: return pick(rng, std::vector<std::string>{"&&", "&&[^q]", "&&[a-m]", "&&\\p{Lower}", "&", "-", "^"});
        case 6: return pick(rng, std::vector<std::string>{"[:alpha:]", "[:digit:]", "\\Q]-\\E", "\\Qa-z\\E"});
        default: return pick(rng, std::vector<std::string>{"a", "b", "Z", "_", "\xc3\xa4", "1"});
    }
}

std::string random_class(Rng& rng, int depth) {
    std::string text = "[";
    if (chance(rng, 0.3)) text += "^";
    if (chance(rng, 0.05)) text += "]";
    const int n = uniform(rng, 1, 4);
    for (int i = 0; i < n; ++i) text += class_item(rng, depth);
    return text + "]";
}

std::string random_pattern(Rng& rng, int depth);

std::string random_atom(Rng& rng, int depth) {
    switch (uniform(rng, 0, 12)) {
        case 0:
        case 1: return pick(rng, kChars);
        case 2: return ".";
        case 3: return pick(rng, kEscapes);
        case 4: return pick(rng, kProperties);
        case 5:
        case 6: return random_class(rng, 0);
        case 7: return "\\Q" + pick(rng, kChars) + pick(rng, kChars) + (chance(rng, 0.8) ? "\\E" : "");
        case 8: {
            if (depth >= 3) return "a";
            const std::string open = pick(rng, std::vector<std::string>{"(", "(", "(?:", "(?<g" + std::to_string(uniform(rng, 0, 3)) + ">",
                                                                        "(?i:", "(?-i:", "(?s:", "(?=", "(?!", "(?>", "(?<=", "(?<!", "(?m:", "(?x:"});
            return open + random_pattern(rng, depth + 1) + (chance(rng, 0.97) ? ")" : "");
        }
        case 9: return pick(rng, std::vector<std::string>{"(?i)", "(?-i)", "(?s)", "(?is)", "(?u)", "(?d)", "(?U)"});
        case 10: return pick(rng, std::vector<std::string>{"^", "$", "\\A", "\\z", "\\Z", "\\b", "\\G", "\\1", "\\k<g0>", "\\X"});
        case 11: return pick(rng, std::vector<std::string>{"*", "{", "}", ")", "\\", "\\y", "\\E", "a{2,1}", "a{,2}", "x{2}{3}"});
        default: return pick(rng, kChars) + pick(rng, kChars);
    }
}

std::string random_pattern(Rng& rng, int depth) {
    std::string text;
    const int n = uniform(rng, 1, 4);
    for (int i = 0; i < n; ++i) {
        text += random_atom(rng, depth);
        if (chance(rng, 0.35)) {
            text += pick(rng, std::vector<std::string>{"*", "+", "?", "{2}", "{1,}", "{0,2}", "{1,3}"});
            if (chance(rng, 0.25)) text += pick(rng, std::vector<std::string>{"?", "+"});
        }
        if (chance(rng, 0.12)) text += "|";
    }
    return text;
}

// Route-by values: random text over the characters above and those the pattern names.
std::string random_value(Rng& rng, const std::string& pattern) {
    std::string value;
    const int n = uniform(rng, 0, 6);
    for (int i = 0; i < n; ++i) {
        if (chance(rng, 0.5) && !pattern.empty()) {
            // A byte of the pattern, widened to its whole UTF-8 character.
            std::size_t at = static_cast<std::size_t>(uniform(rng, 0, static_cast<int>(pattern.size()) - 1));
            while (at > 0 && (static_cast<unsigned char>(pattern[at]) & 0xC0) == 0x80) --at;
            std::size_t end = at + 1;
            while (end < pattern.size() && (static_cast<unsigned char>(pattern[end]) & 0xC0) == 0x80) ++end;
            value += pattern.substr(at, end - at);
        } else {
            value += pick(rng, kChars);
        }
    }
    return value;
}

std::string shown(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else out += c;
    }
    return "\"" + out + "\"";
}

const config::Location kAt{"fuzz.yaml", 1};

}  // namespace

BOOST_AUTO_TEST_CASE(java_and_the_router_read_generated_patterns_alike) {
    const int cases = env_int("OUTBOX_PATTERN_FUZZ_CASES", 3000);
    const int first_seed = env_int("OUTBOX_PATTERN_FUZZ_SEED", 1);
    constexpr int kValues = 8;
    std::vector<std::string> patterns;
    std::vector<std::vector<std::string>> values;
    for (int i = 0; i < cases; ++i) {
        Rng rng(static_cast<std::uint64_t>(first_seed + i) * 2654435761u + 7);
        patterns.push_back(random_pattern(rng, 0));
        auto& these = values.emplace_back();
        for (int v = 0; v < kValues; ++v) these.push_back(random_value(rng, patterns.back()));
    }
    char dir_template[] = "/tmp/java-patterns-XXXXXX";
    const std::string dir = mkdtemp(dir_template);
    {
        std::ofstream in(dir + "/in.txt");
        for (std::size_t i = 0; i < patterns.size(); ++i) {
            in << to_hex(patterns[i]);
            for (const auto& value : values[i]) in << ' ' << to_hex(value);
            in << '\n';
        }
    }
    const std::string oracle = std::string(OUTBOX_SOURCE_DIR) + "/tests/parity/JavaPatternOracle.java";
    const std::string command = test::java_binary() + " " + oracle + " " + dir + "/in.txt " + dir + "/out.txt 2>" + dir + "/err.txt";
    BOOST_REQUIRE_MESSAGE(std::system(command.c_str()) == 0, "the Java oracle failed: " << test::tail_of_file(dir + "/err.txt", 20));
    std::ifstream out(dir + "/out.txt");
    std::size_t both_refuse = 0, router_refuses = 0, compared = 0, matched = 0, failures = 0, java_throws = 0;
    std::map<std::string, std::size_t> refusals;  // the router's refusals of patterns Java takes, by construct
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        std::string line;
        BOOST_REQUIRE(std::getline(out, line));
        std::istringstream fields(line);
        std::string kind;
        fields >> kind;
        const auto& pattern = patterns[i];
        if (kind == "E") {
            try {
                TopicRouter router(pattern, "t", kAt, kAt);
                ++failures;
                BOOST_ERROR("Java refuses the pattern " << shown(pattern) << "; the router takes it");
            } catch (const ConfigError&) {
                ++both_refuse;
            }
            continue;
        }
        int groups = 0;
        fields >> groups;
        std::string replacement;
        for (int g = 0; g <= groups; ++g) replacement += "<$" + std::to_string(g) + ">";
        std::unique_ptr<TopicRouter> router;
        try {
            router = std::make_unique<TopicRouter>(pattern, replacement, kAt, kAt);
        } catch (const ConfigError& e) {
            ++router_refuses;
            // The construct named, without the pattern and its position.
            std::string why = e.what();
            const auto named = why.find("as Java reads it: ");
            why = named != std::string::npos ? why.substr(named + 18) : why.substr(why.rfind(": ") + 2);
            why = why.substr(0, why.find(" (near"));
            ++refusals[why];
            continue;
        }
        for (const auto& value : values[i]) {
            std::string java;
            fields >> java;
            if (java == "!") {
                ++java_throws;
                BOOST_TEST_MESSAGE("Java throws matching " << shown(pattern) << " against " << shown(value));
                continue;
            }
            if (!java.empty() && java.back() == '=') java.pop_back();
            const std::string expected = java == "-" ? value : from_hex(java);
            if (java != "-") ++matched;
            ++compared;
            const std::string ours = router->route_for(value).topic;
            if (ours != expected) {
                ++failures;
                BOOST_ERROR("pattern " << shown(pattern) << " value " << shown(value) << ": Java " << shown(expected)
                                       << ", the router " << shown(ours));
            }
        }
    }
    std::string summary = "java patterns: " + std::to_string(patterns.size()) + " patterns, " + std::to_string(both_refuse) +
                          " refused by both, " + std::to_string(router_refuses) + " refused by the router only, " +
                          std::to_string(compared) + " values compared (" + std::to_string(matched) + " matched), " +
                          std::to_string(failures) + " differences, " + std::to_string(java_throws) +
                          " values Java throws on";
    for (const auto& [why, count] : refusals) summary += "\n  " + std::to_string(count) + " x " + why;
    BOOST_TEST_MESSAGE(summary);
    std::fprintf(stderr, "%s\n", summary.c_str());
    BOOST_TEST(failures == 0u);
    BOOST_TEST(compared > 0u);
    std::system(("rm -rf " + dir).c_str());
}
