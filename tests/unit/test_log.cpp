#define BOOST_TEST_MODULE log
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "outbox/util/log.hpp"

namespace logging = outbox::log;
using namespace std::chrono_literals;

namespace {

// 2024-05-01T12:34:56.789Z
const auto kMoment = std::chrono::system_clock::time_point(1714566896s + 789ms);

// What logging::write prints to stderr while `body` runs.
template <typename Body>
std::string captured_stderr(Body body) {
    std::fflush(stderr);
    FILE* capture = std::tmpfile();
    BOOST_REQUIRE(capture);
    const int saved = dup(STDERR_FILENO);
    dup2(fileno(capture), STDERR_FILENO);
    body();
    std::fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    std::rewind(capture);
    std::string text;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, capture)) > 0;) text.append(buffer, n);
    std::fclose(capture);
    return text;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

struct RestoreDefaults {
    ~RestoreDefaults() {
        logging::set_level(logging::Level::info);
        logging::set_format(logging::Format::text);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(text_lines_keep_their_format) {
    BOOST_TEST(logging::format_line(logging::Format::text, logging::Level::info, "streaming from slot \"s\"", kMoment) ==
               "2024-05-01T12:34:56.789Z INFO  streaming from slot \"s\"\n");
    BOOST_TEST(logging::format_line(logging::Format::text, logging::Level::error, "x", kMoment) ==
               "2024-05-01T12:34:56.789Z ERROR x\n");
}

BOOST_AUTO_TEST_CASE(json_lines_are_one_object_with_ts_level_msg) {
    BOOST_TEST(logging::format_line(logging::Format::json, logging::Level::warn, "reconnecting in about 200 ms", kMoment) ==
               "{\"ts\":\"2024-05-01T12:34:56.789Z\",\"level\":\"warn\",\"msg\":\"reconnecting in about 200 ms\"}\n");
    // Quotes, backslashes, control characters and broken UTF-8 from the database stay one valid line.
    const std::string nasty = "row \"a\\b\"\nnext\tline \xff\xfe end";
    const std::string line = logging::format_line(logging::Format::json, logging::Level::debug, nasty, kMoment);
    BOOST_TEST(line.find('\n') == line.size() - 1);
    const auto parsed = nlohmann::json::parse(line);
    BOOST_TEST(parsed.size() == 3u);
    BOOST_TEST(parsed.at("level").get<std::string>() == "debug");
    BOOST_TEST(parsed.at("msg").get<std::string>() == "row \"a\\b\"\nnext\tline \xEF\xBF\xBD\xEF\xBF\xBD end");
}

BOOST_AUTO_TEST_CASE(passwords_are_masked_in_every_format) {
    const std::string leaky = "cannot connect with \"host=db user=outbox password=hunter2 dbname=app\" or "
                              "postgresql://outbox:hunter2@db/app or PASSWORD = 'hunter 2' or "
                              "postgresql+psycopg2://app:hunter2@db/app";
    for (const auto format : {logging::Format::text, logging::Format::json}) {
        const std::string line = logging::format_line(format, logging::Level::error, leaky, kMoment);
        BOOST_TEST(line.find("hunter") == std::string::npos, line);
        BOOST_TEST(line.find("password=****") != std::string::npos, line);
        BOOST_TEST(line.find("postgresql://outbox:****@db/app") != std::string::npos, line);
        BOOST_TEST(line.find("postgresql+psycopg2://app:****@db/app") != std::string::npos, line);
    }
}

BOOST_AUTO_TEST_CASE(write_honours_level_and_format) {
    const RestoreDefaults restore;
    const std::string text = captured_stderr([] {
        logging::set_level(logging::Level::warn);
        logging::set_format(logging::Format::json);
        logging::info("hidden");
        logging::warn("shown password=s3cret");
        logging::set_level(logging::Level::debug);
        logging::debug("details");
        logging::set_format(logging::Format::text);
        logging::error("plain");
    });
    const auto lines = lines_of(text);
    BOOST_REQUIRE(lines.size() == 3u);
    const auto first = nlohmann::json::parse(lines[0]);
    BOOST_TEST(first.at("level").get<std::string>() == "warn");
    BOOST_TEST(first.at("msg").get<std::string>() == "shown password=****");
    BOOST_TEST(nlohmann::json::parse(lines[1]).at("msg").get<std::string>() == "details");
    BOOST_TEST(lines[2].ends_with(" ERROR plain"));
    BOOST_TEST(text.find("s3cret") == std::string::npos);
}

// The masking is a scan: a line quoting a long value after "password=" or in a URL must not
// exhaust the stack, as std::regex's once-per-character recursion did. It masks what the
// regular expressions it replaced masked (they are the oracle here, on short lines).
BOOST_AUTO_TEST_CASE(masking_scans_long_lines_and_masks_what_the_regular_expressions_did) {
    const auto by_regex = [](const std::string& text) {
        static const std::regex key_value(R"((password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*))", std::regex::icase);
        static const std::regex uri_password(R"((://[^:/@\s]*:)[^@\s]*@)");
        return std::regex_replace(std::regex_replace(text, key_value, "$1****"), uri_password, "$1****@");
    };
    for (const std::string line : {"host=db password=hunter2 dbname=app", "PASSWORD = 'a b\\'c' x",
                                   "password='unterminated x", "password=", "password\n=\nv w", "passwordpassword=x",
                                   "sasl.password=abc&x=1 password=def", "postgresql://u:p@h/db and postgres://x:y@z",
                                   "postgres://host:5432/db", "POSTGRESQL://U:P@H", "postgres://u:p q@h",
                                   "postgresql://:secret@host", "password='a\\\nb' c", "https://u:p@h",
                                   "postgresql+psycopg2://app:PW@host/db", "redis://:PW@h x://y", "a://b:c d@e"})
        BOOST_TEST(outbox::log::mask_conninfo(line) == by_regex(line), line);
    const std::string long_value(300000, 'x');
    BOOST_TEST(outbox::log::mask_conninfo("password=" + long_value + " next") == "password=**** next");
    BOOST_TEST(outbox::log::mask_conninfo("postgres://u:" + long_value + "@h/db") == "postgres://u:****@h/db");
    BOOST_TEST(outbox::log::mask_conninfo("password='" + long_value) == "password=****");
}
