#define BOOST_TEST_MODULE alert_rules
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <cstdlib>
#include <filesystem>

#include "harness.hpp"
#include "test_ca.hpp"
#include "http_get.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// The Prometheus alert rules and the Grafana dashboard beside them (deploy/prometheus): the rules
// pass their `promtool test rules` cases (tests/platform/alerts-test.yaml) with the real promtool,
// and every metric and label that the rules, those cases' series and the dashboard name is in the
// /metrics of a running router that has published, skipped and dead-lettered events.

namespace {

const std::string kSource = OUTBOX_SOURCE_DIR;
const std::string kRules = kSource + "/deploy/prometheus/outbox-router-alerts.yaml";
const std::string kRuleTests = kSource + "/tests/platform/alerts-test.yaml";
const std::string kDashboard = kSource + "/deploy/prometheus/outbox-router-dashboard.json";

int run(const std::string& command, std::string& output) {
    const auto log = make_temp_dir("alert-rules") + "/output.txt";
    const int status = std::system((command + " >" + log + " 2>&1").c_str());
    output = read_file(log);
    std::filesystem::remove_all(std::filesystem::path(log).parent_path());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string promtool() { return OUTBOX_PROMTOOL_BINARY; }

// A copy of `path` in a folder of its own with `from` replaced by `to` (once); a copy of the
// rule tests reads the rules at `rules`.
std::string altered_copy(const std::string& path, const std::string& from, const std::string& to,
                         const std::string& rules = kRules) {
    auto text = read_file(path);
    const auto at = text.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
    const std::string relative_rules = "../../deploy/prometheus/outbox-router-alerts.yaml";
    if (const auto rule_files = text.find(relative_rules); rule_files != std::string::npos)
        text.replace(rule_files, relative_rules.size(), rules);
    const auto copy = make_temp_dir("altered") + "/" + std::filesystem::path(path).filename().string();
    write_file(copy, text);
    return copy;
}

void remove_copy(const std::string& copy) { std::filesystem::remove_all(std::filesystem::path(copy).parent_path()); }

// /metrics of a router that published events, skipped an UPDATE and dead-lettered an event whose
// topic name Kafka would refuse.
std::string live_scrape() {
    const auto db = create_outbox_database("alerts");
    const auto port = static_cast<std::uint16_t>(free_loopback_port());
    RouterProcess router(work_dir(), router_config(db, "",
                                                   "errors.tolerance: all\nerrors.deadletterqueue.topic.name: alerts.dlq\n"
                                                   "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n",
                                                   "outbox:\n  route.topic.replacement: \"alerts.${routedByValue}\"\n"));
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 5, 2));
    sql.exec("UPDATE outbox SET type = 'Changed' WHERE aggregateid = 'key-1'");
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) "
             "VALUES (gen_random_uuid(), 'not a topic!', 'k', 'Created', '{}')");
    std::string text;
    BOOST_REQUIRE_MESSAGE(wait_until([&] {
        text = http_get(port, "/metrics").body;
        return sample_value(text, "outbox_router_events_dead_lettered_total{table=\"public.outbox\",topic=\"alerts.dlq\"}")
                   .value_or(0) == 1 &&
               sample_value(text, "outbox_router_events_published_total{topic=\"alerts.Order\"}").value_or(0) == 5;
    }, 60s), text + router.output());
    BOOST_TEST(router.stop(SIGTERM) == 0);
    return text;
}

std::string check_names(const std::string& scrape_text, const std::string& rules, const std::string& tests,
                        int& exit_code) {
    const auto dir = make_temp_dir("scrape");
    write_file(dir + "/metrics.txt", scrape_text);
    std::string output;
    exit_code = run(std::string(OUTBOX_PLATFORM_PYTHON) + " " + kSource + "/tests/platform/check_metric_names.py " +
                        dir + "/metrics.txt " + rules + " " + tests + " " + kDashboard + " " + kSource +
                        "/docs/operations.md",
                    output);
    std::filesystem::remove_all(dir);
    return output;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_rules_are_valid_and_pass_their_promtool_tests) {
    std::string output;
    BOOST_TEST(run(promtool() + " check rules " + kRules, output) == 0, output);
    BOOST_TEST(contains(output, "SUCCESS: 16 rules found"), output);
    BOOST_TEST(run(promtool() + " test rules " + kRuleTests, output) == 0, output);
    BOOST_TEST_MESSAGE(output);
}

// The cases can fail: an alert expected where the rule does not fire (a pair whose slot moved
// from one instance to the other), and a rule made blind to the outage.
BOOST_AUTO_TEST_CASE(promtool_fails_a_case_whose_alert_does_not_behave_as_expected) {
    std::string output;
    const auto wrong_expectation = altered_copy(kRuleTests, "      - eval_time: 8m\n        alertname: OutboxRouterNotStreaming\n        exp_alerts: []",
                                                "      - eval_time: 8m\n        alertname: OutboxRouterNotStreaming\n"
                                                "        exp_alerts:\n          - exp_labels: {severity: critical, job: outbox-router}");
    BOOST_TEST(run(promtool() + " test rules " + wrong_expectation, output) == 1, output);
    remove_copy(wrong_expectation);

    const auto blind_rules = altered_copy(kRules, "max by (job) (outbox_router_streaming) < 1", "max by (job) (outbox_router_streaming) < 0");
    const auto tests_of_blind = altered_copy(kRuleTests, "rule_files:", "rule_files:", blind_rules);
    BOOST_TEST(run(promtool() + " test rules " + tests_of_blind, output) == 1, output);
    BOOST_TEST(contains(output, "OutboxRouterNotStreaming"), output);
    remove_copy(blind_rules);
    remove_copy(tests_of_blind);
}

BOOST_AUTO_TEST_CASE(every_metric_the_rules_their_tests_and_the_dashboard_name_is_exported_by_a_running_router) {
    const auto scrape = live_scrape();
    // The CA that postgres.conninfo's sslrootcert names (the test CA, made for 30 days).
    const auto ca_expiry = sample_value(scrape, "outbox_router_tls_certificate_expiry_timestamp_seconds{use=\"postgres."
                                                "sslrootcert\",file=\"" + test_ca().certificate() + "\"}");
    const double now = static_cast<double>(std::time(nullptr));
    BOOST_TEST((ca_expiry && *ca_expiry > now + 29 * 86400 && *ca_expiry < now + 31 * 86400), scrape);
    int code = -1;
    auto output = check_names(scrape, kRules, kRuleTests, code);
    BOOST_TEST(code == 0, output);
    BOOST_TEST_MESSAGE(output);

    // A misspelled metric and a label the metric does not have are caught.
    const auto misspelled = altered_copy(kRules, "outbox_router_slot_monitor_up == 0", "outbox_router_slot_monitor_ok == 0");
    output = check_names(scrape, misspelled, kRuleTests, code);
    BOOST_TEST(code == 1, output);
    BOOST_TEST(contains(output, "outbox_router_slot_monitor_ok is not in the router's /metrics"), output);
    remove_copy(misspelled);
    const auto wrong_label = altered_copy(kRuleTests, "reason=\"invalid\"", "cause=\"invalid\"");
    output = check_names(scrape, kRules, wrong_label, code);
    BOOST_TEST(code == 1, output);
    BOOST_TEST(contains(output, "label names"), output);
    remove_copy(wrong_label);
}
