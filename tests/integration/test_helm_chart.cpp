#define BOOST_TEST_MODULE helm_chart
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <map>
#include <set>

#include "harness.hpp"
#include "helm_chart.hpp"
#include "http_get.hpp"
#include "rendered_container.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// The router run FROM THE RENDERED CHART (deploy/helm/outbox-router): helm renders the chart for
// values pointing at this program's PostgreSQL and Kafka, and the Deployment's container is run
// as rendered: its command and arguments, its environment, the ConfigMap and the Secrets at their
// mount paths (the files the test would have put into the Secrets), its user and fsGroup and a
// read-only root. TLS everywhere: PostgreSQL verified (sslmode=verify-full) with a password from a
// Secret file, Kafka over SASL_SSL with the password from another. A chart that renders a
// configuration the router refuses, a probe path it does not serve or a secret it cannot read
// fails here. Not run: a kubelet, a scheduler, the Service and the monitors (no cluster here).

namespace {

constexpr const char* kRole = "chart_outbox";
constexpr const char* kPgPassword = "pg-secret-'quote\\and space";
constexpr const char* kSecretsRoot = "/etc/outbox-router/secrets";

struct Servers {
    Servers() {
        const auto server = test_ca().server("chart-kafka", {"localhost"});
        BrokerClusterOptions options;
        options.tls_listeners = {{"SASLTLS", true, false, server.certificate, server.key, ""}};
        configure_real_kafka(options);
        Sql admin(postgres().conninfo("postgres"));
        admin.exec(std::string("CREATE ROLE ") + kRole + " LOGIN REPLICATION PASSWORD " +
                   "'" + std::string("pg-secret-''quote\\and space") + "'");
        postgres().set_hba(std::string("local all all trust\n") + "hostssl all " + kRole +
                           " 127.0.0.1/32 scram-sha-256\n" + "host all all 127.0.0.1/32 trust\n");
    }
};
BOOST_TEST_GLOBAL_FIXTURE(Servers);

// Java properties text: a backslash, and nothing else in this password, needs escaping.
std::string properties_value(const std::string& value) {
    std::string escaped;
    for (char c : value) {
        if (c == '\\') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

// The Secrets the values below mount, as an operator would have created them.
SecretStore secrets() {
    const auto ca = read_file(test_ca().certificate());
    return {{"chart-postgres", {{"ca.crt", ca}, {"pg.properties", "password=" + properties_value(kPgPassword) + "\n"}}},
            {"chart-kafka", {{"ca.crt", ca}, {"kafka.properties", std::string("password=") + kSaslPassword + "\n"}}}};
}

// Values for `db` (its slot and publication named so), events routed to `topic`, `extra`
// (top-level values lines) appended: the way a platform team would write them.
std::string values_for(const std::string& db, const std::string& topic, int port, const std::string& extra_config = "",
                       const std::string& extra = "") {
    return "image:\n  repository: outbox-router\n  tag: test\n"
           "config:\n"
           "  postgres:\n"
           "    conninfo: \"host=127.0.0.1 port=" + std::to_string(postgres().port()) + " dbname=" + db + " user=" + kRole +
           " sslmode=verify-full sslrootcert=" + kSecretsRoot + "/postgres/ca.crt password='${file:" + kSecretsRoot +
           "/postgres/pg.properties:password}'\"\n"
           "    slot.name: " + db + "\n"
           "    publication.name: " + db + "\n"
           "    publication.autocreate.mode: disabled\n"
           "    status.update.interval.ms: 200\n"
           "  outbox:\n"
           "    route.topic.replacement: " + topic + "\n"
           "  kafka:\n"
           "    bootstrap.servers: \"" + real_kafka().tls_bootstrap_servers("SASLTLS") + "\"\n"
           "    security.protocol: SASL_SSL\n"
           "    sasl.mechanisms: PLAIN\n"
           "    sasl.username: " + kSaslUser + "\n"
           "    sasl.password: \"${file:" + kSecretsRoot + "/kafka/kafka.properties:password}\"\n"
           "    ssl.ca.location: " + kSecretsRoot + "/kafka/ca.crt\n"
           "    ssl.endpoint.identification.algorithm: https\n"
           "    linger.ms: 1\n"
           "  shutdown.timeout.ms: 10000\n" + extra_config +
           "secretFiles:\n"
           "  - name: postgres\n    secretName: chart-postgres\n"
           "  - name: kafka\n    secretName: chart-kafka\n"
           "metrics:\n  port: " + std::to_string(port) + "\n" + extra;
}

std::string database(const std::string& prefix) {
    const auto db = create_outbox_database(prefix);
    Sql(postgres().conninfo(db)).exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");
    return db;
}

RenderedContainer rendered(const std::string& values) {
    const auto rendering = render_chart(values);
    BOOST_REQUIRE_MESSAGE(rendering.exit_code == 0, rendering.errors);
    BOOST_TEST(!contains(rendering.manifests, kSaslPassword), "a secret reached the manifests");
    BOOST_TEST(!contains(rendering.manifests, "pg-secret"), "a secret reached the manifests");
    return RenderedContainer(rendering.manifests, secrets());
}

std::string probe_path(const RenderedContainer& container, const char* probe) {
    return container.container()[probe]["httpGet"]["path"].as<std::string>();
}

// Rows 0..count-1 reach `topic` once each (read_committed).
void routes(const std::string& db, const std::string& topic, int count) {
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, count, 3));
    const auto records = read_topic(kafka_servers(), topic, static_cast<std::size_t>(count));
    std::multiset<int> seqs;
    for (const auto& record : records) seqs.insert(seq_of(record));
    BOOST_TEST(records.size() == static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) BOOST_TEST(seqs.count(i) == 1u, "seq " << i);
}

// SIGTERM is answered with exit 0 within the pod's grace period.
void stops_within_grace(RenderedContainer& container) {
    const auto grace = container.deployment()["spec"]["template"]["spec"]["terminationGracePeriodSeconds"].as<int>();
    BOOST_TEST(container.stop(SIGTERM, std::chrono::seconds(grace)) == 0, container.output());
}

// The process runs as runAsUser, sees the ConfigMap at its mount path, and its root is read-only.
void runs_as_the_pod_says(RenderedContainer& container) {
    const auto proc = "/proc/" + std::to_string(container.pid());
    const auto status = read_file(proc + "/status");
    const auto uid = status.substr(status.find("Uid:") + 4, status.find('\n', status.find("Uid:")) - status.find("Uid:") - 4);
    BOOST_TEST(container.user() == 10001u);
    BOOST_TEST(contains(uid, "\t10001\t10001\t10001"), uid);
    BOOST_TEST(read_file(proc + "/root/etc/outbox-router/router.yaml") ==
               container.file_at("/etc/outbox-router/router.yaml"));
    BOOST_TEST(contains(read_file(proc + "/root/etc/outbox-router/router.yaml"), "listen: 0.0.0.0:"));
    BOOST_TEST(container.read_only_root());
    BOOST_TEST(contains(read_file(proc + "/mountinfo"), " / / ro,"), read_file(proc + "/mountinfo"));
}

void runs_ready_and_routes(const std::string& db, const std::string& topic, const std::string& values) {
    auto container = rendered(values);
    BOOST_TEST(!contains(container.file_at("/etc/outbox-router/router.yaml"), "pg-secret"));
    const auto port = static_cast<std::uint16_t>(container.port("http-metrics"));
    container.start();
    BOOST_REQUIRE_MESSAGE(container.wait_output("streaming from slot"), container.output());
    runs_as_the_pod_says(container);
    BOOST_TEST(http_get(port, probe_path(container, "livenessProbe")).status == 200);
    const auto ready_path = probe_path(container, "readinessProbe");
    BOOST_TEST(wait_until([&] { return http_get(port, ready_path).status == 200; }, 30s), http_get(port, ready_path).body);
    routes(db, topic, 30);
    const auto metrics = http_get(port, "/metrics").body;
    BOOST_TEST(wait_until([&] {
        const auto value = sample_value(http_get(port, "/metrics").body,
                                        "outbox_router_events_published_total{topic=\"" + topic + "\"}");
        return value && *value == 30;
    }, 10s), metrics);
    stops_within_grace(container);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_chart_with_tls_everywhere_runs_ready_and_routes) {
    const auto db = database("chart_tls");
    runs_ready_and_routes(db, "chart.tls", values_for(db, "chart.tls", free_loopback_port()));
}

BOOST_AUTO_TEST_CASE(the_chart_under_exactly_once_runs_ready_and_routes_each_event_once) {
    const auto db = database("chart_eo");
    runs_ready_and_routes(db, "chart.eo", values_for(db, "chart.eo", free_loopback_port(),
                                                     "  delivery.guarantee: exactly-once\n  offsets.topic: " + db + "-offsets\n"));
}

// The pair's instance as rendered (its standby would run the same manifests; two on one machine
// would share the listen port, which two pods do not).
BOOST_AUTO_TEST_CASE(the_pairs_instance_runs_and_is_ready_by_healthz) {
    const auto db = database("chart_pair");
    auto values = values_for(db, "chart.pair", free_loopback_port(), "", "pair:\n  enabled: true\n");
    auto container = rendered(values);
    BOOST_TEST(container.deployment()["spec"]["replicas"].as<int>() == 2);
    BOOST_TEST(probe_path(container, "readinessProbe") == "/healthz");
    runs_ready_and_routes(db, "chart.pair", values);
}

BOOST_AUTO_TEST_CASE(the_chart_with_metrics_off_runs_and_routes) {
    const auto db = database("chart_nometrics");
    auto container = rendered(values_for(db, "chart.nometrics", free_loopback_port(), "", "  enabled: false\n"));
    BOOST_TEST(!container.container()["ports"]);
    BOOST_TEST(!container.container()["livenessProbe"]);
    container.start();
    BOOST_REQUIRE_MESSAGE(container.wait_output("streaming from slot"), container.output());
    BOOST_TEST(!contains(read_file("/proc/" + std::to_string(container.pid()) + "/root/etc/outbox-router/router.yaml"),
                         "listen:"));
    routes(db, "chart.nometrics", 10);
    stops_within_grace(container);
}

// What the test stands for: a configuration the chart renders but the router refuses stops the
// container at start, naming the mounted file.
BOOST_AUTO_TEST_CASE(a_rendered_configuration_the_router_refuses_fails_the_container) {
    const auto db = database("chart_refused");
    auto container = rendered(values_for(db, "chart.refused", free_loopback_port(), "  max.inflight.messages: -5\n"));
    container.start();
    BOOST_TEST(container.wait(30s) == 1, container.output());
    BOOST_TEST(contains(container.output(), "/etc/outbox-router/router.yaml:"), container.output());
    BOOST_TEST(contains(container.output(), "max.inflight.messages"), container.output());
}

// A Secret without the key the configuration reads: the router names the file and key.
BOOST_AUTO_TEST_CASE(a_secret_without_the_key_the_configuration_reads_fails_the_container) {
    const auto db = database("chart_nokey");
    const auto rendering = render_chart(values_for(db, "chart.nokey", free_loopback_port()));
    BOOST_REQUIRE_MESSAGE(rendering.exit_code == 0, rendering.errors);
    auto store = secrets();
    store["chart-kafka"]["kafka.properties"] = "user=outbox\n";
    RenderedContainer container(rendering.manifests, store);
    container.start();
    BOOST_TEST(container.wait(30s) == 1, container.output());
    BOOST_TEST(contains(container.output(), "/etc/outbox-router/secrets/kafka/kafka.properties"), container.output());
    BOOST_TEST(!contains(container.output(), kSaslPassword), container.output());
}
