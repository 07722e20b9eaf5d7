#define BOOST_TEST_MODULE log_output
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <csignal>
#include <sstream>
#include <vector>

#include "harness.hpp"
#include "http_get.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// The router's own output in both log formats, with a password in its conninfo.

namespace {

constexpr const char* kPassword = "hunter2-secret";

std::string config_with(const std::string& database, const std::string& postgres_extra, const std::string& top_extra) {
    return "postgres:\n"
           "  conninfo: \"" + postgres().conninfo(database) + " password=" + kPassword + "\"\n"
           "  slot.name: " + database + "\n"
           "  publication.name: " + database + "\n" +
           postgres_extra +
           "kafka:\n"
           "  bootstrap.servers: \"" + kafka_servers() + "\"\n" +
           top_extra;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

}  // namespace

BOOST_AUTO_TEST_CASE(json_format_writes_only_json_lines_down_to_the_final_error) {
    const auto db = create_outbox_database("logjson");
    // No publication and not allowed to create one: a definite error after start-up.
    RouterProcess router(work_dir(), config_with(db, "  publication.autocreate.mode: disabled\n",
                                                 "log:\n  format: json\n  level: debug\n"));
    BOOST_REQUIRE(router.wait(60s) == 1);
    const std::string output = router.output();
    BOOST_TEST(output.find(kPassword) == std::string::npos);
    const auto lines = lines_of(output);
    BOOST_REQUIRE(!lines.empty());
    for (const auto& line : lines) {
        BOOST_TEST_CONTEXT(line) {
            const auto parsed = nlohmann::json::parse(line, nullptr, false);
            BOOST_REQUIRE(parsed.is_object());
            BOOST_TEST(parsed.size() == 3u);
            BOOST_TEST(parsed.at("ts").get<std::string>().ends_with("Z"));
            BOOST_TEST(parsed.at("msg").is_string());
        }
    }
    const auto last = nlohmann::json::parse(lines.back());
    BOOST_TEST(last.at("level").get<std::string>() == "error");
    BOOST_TEST(last.at("msg").get<std::string>().find("publication \"" + db + "\" does not exist") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(text_format_logs_the_endpoint_and_periodic_progress) {
    const auto db = create_outbox_database("logtext");
    const int port = free_loopback_port();
    RouterProcess router(work_dir(), config_with(db, "", "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) +
                                                             "\"\nlog:\n  progress.interval.ms: 500\n"));
    BOOST_TEST(wait_until([&] { return router.output().find(" INFO  progress: ") != std::string::npos; }, 30s));
    BOOST_TEST(router.stop(SIGTERM) == 0);
    const std::string output = router.output();
    BOOST_TEST(output.find(" INFO  serving /metrics, /healthz and /readyz on 127.0.0.1:" + std::to_string(port)) !=
               std::string::npos);
    BOOST_TEST(output.find(kPassword) == std::string::npos);
    for (const auto& line : lines_of(output)) BOOST_TEST(line.substr(0, 2) == "20", line);  // every line timestamped
}

BOOST_AUTO_TEST_CASE(a_taken_metrics_port_is_a_definite_error) {
    const auto db = create_outbox_database("logport");
    const int port = free_loopback_port();
    const std::string config = config_with(db, "", "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n");
    RouterProcess first(work_dir(), config);
    BOOST_REQUIRE(wait_until([&] { return http_get(static_cast<std::uint16_t>(port), "/healthz").status != 0; }, 30s));
    RouterProcess second(work_dir(), config);
    BOOST_TEST(second.wait(30s) == 1);
    BOOST_TEST(second.output().find("metrics.listen: cannot listen on 127.0.0.1:" + std::to_string(port)) != std::string::npos);
    BOOST_TEST(first.stop(SIGTERM) == 0);
}
