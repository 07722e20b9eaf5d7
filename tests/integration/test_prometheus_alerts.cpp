#define BOOST_TEST_MODULE prometheus_alerts
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include "harness.hpp"
#include "http_get.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// End to end: a real Prometheus server scrapes a running router every second and evaluates the
// alert rules of deploy/prometheus (their `for:` durations shortened to seconds, nothing else
// changed) through a Kafka outage: the broker is killed, OutboxRouterNotReady fires, the broker
// comes back, the alert resolves, and the events written during the outage arrive.

namespace {

// A Prometheus server on a free loopback port, its data in a temporary folder; killed at exit.
class PrometheusServer {
public:
    PrometheusServer(const std::string& config_yaml, const std::string& rules_yaml)
        : dir_(make_temp_dir("prometheus-")), port_(free_loopback_port()) {
        write_file(dir_ + "/rules.yaml", rules_yaml);
        write_file(dir_ + "/prometheus.yaml", config_yaml + "rule_files: [\"" + dir_ + "/rules.yaml\"]\n");
        const auto listen = "127.0.0.1:" + std::to_string(port_);
        const auto config = "--config.file=" + dir_ + "/prometheus.yaml";
        const auto storage = "--storage.tsdb.path=" + dir_ + "/data";
        const auto web = "--web.listen-address=" + listen;
        const auto log = dir_ + "/prometheus.log";
        pid_ = fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(out, STDOUT_FILENO);
            dup2(out, STDERR_FILENO);
            execl(OUTBOX_PROMETHEUS_BINARY, "prometheus", config.c_str(), storage.c_str(), web.c_str(),
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        if (!wait_until([&] { return http_get(static_cast<std::uint16_t>(port_), "/-/ready").status == 200; }, 60s))
            throw std::runtime_error("prometheus did not become ready: " + read_file(log));
    }
    ~PrometheusServer() {
        kill(pid_, SIGTERM);
        int status = 0;
        waitpid(pid_, &status, 0);
        std::filesystem::remove_all(dir_);
    }
    PrometheusServer(const PrometheusServer&) = delete;
    PrometheusServer& operator=(const PrometheusServer&) = delete;

    std::string get(const std::string& path) const { return http_get(static_cast<std::uint16_t>(port_), path).body; }
    // The state ("pending", "firing") of the active alert `name`, or "" when it is not active.
    std::string alert_state(const std::string& name) const {
        const auto body = get("/api/v1/alerts");
        const std::regex alert("\\{\"labels\":\\{[^}]*\"alertname\":\"" + name + "\"[^}]*\\},\"annotations\":\\{[^}]*\\},\"state\":\"([a-z]+)\"");
        std::smatch match;
        return std::regex_search(body, match, alert) ? match[1].str() : "";
    }
    std::string log() const { return read_file(dir_ + "/prometheus.log"); }

private:
    std::string dir_;
    int port_;
    pid_t pid_ = -1;
};

// The rules as shipped, with every `for:` of minutes made seconds.
std::string rules_with_short_waits() {
    const auto rules = read_file(std::string(OUTBOX_SOURCE_DIR) + "/deploy/prometheus/outbox-router-alerts.yaml");
    return std::regex_replace(rules, std::regex("for: [0-9]+m"), "for: 2s");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_kafka_outage_fires_not_ready_and_its_end_resolves_it) {
    const auto db = create_outbox_database("promalerts");
    const auto port = free_loopback_port();
    const std::string topic = "promalerts.events";
    RouterProcess router(work_dir(), router_config(db, "", "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n",
                                                   "outbox:\n  route.topic.replacement: " + topic + "\n"));
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
    // A scrape takes up to the readiness probe's 1 s while Kafka does not answer: the timeout
    // (at most the interval) leaves room for it.
    PrometheusServer prometheus("global: {scrape_interval: 2s, scrape_timeout: 2s, evaluation_interval: 1s}\n"
                                "scrape_configs:\n"
                                "  - job_name: outbox-router\n"
                                "    static_configs: [{targets: [\"127.0.0.1:" + std::to_string(port) + "\"]}]\n",
                                rules_with_short_waits());
    BOOST_REQUIRE_MESSAGE(wait_until([&] {
        return contains(prometheus.get("/api/v1/query?query=outbox_router_ready"), "\"value\":[") &&
               contains(prometheus.get("/api/v1/query?query=outbox_router_ready"), ",\"1\"]");
    }, 60s), prometheus.get("/api/v1/query?query=outbox_router_ready") + prometheus.log());
    BOOST_TEST(prometheus.alert_state("OutboxRouterNotReady").empty());
    Sql sql(postgres().conninfo(db));
    sql.exec(outbox_rows_sql(0, 10, 3));
    BOOST_REQUIRE(read_topic(kafka_servers(), topic, 10).size() == 10u);

    real_kafka().node(1).kill_hard();
    sql.exec(outbox_rows_sql(10, 10, 3));
    BOOST_TEST(wait_until([&] { return prometheus.alert_state("OutboxRouterNotReady") == "firing"; }, 90s),
               prometheus.get("/api/v1/alerts"));
    BOOST_TEST(prometheus.alert_state("OutboxRouterDown").empty());  // the router itself answers
    BOOST_TEST(router.running());

    real_kafka().restart(1);
    BOOST_TEST(wait_until([&] { return prometheus.alert_state("OutboxRouterNotReady").empty(); }, 120s),
               prometheus.get("/api/v1/alerts"));
    const auto records = read_topic(kafka_servers(), topic, 20);
    std::set<int> seqs;
    for (const auto& record : records) seqs.insert(seq_of(record));
    BOOST_TEST(seqs.size() == 20u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
