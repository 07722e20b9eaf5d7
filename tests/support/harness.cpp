#include "harness.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include <boost/test/tree/observer.hpp>
#include <boost/test/unit_test.hpp>

#include "outbox/util/lsn.hpp"

namespace outbox::test {

PgServer& postgres() {
    static PgServer server;
    // The version matrix (tests/CMakeLists.txt) names the major it means to run on.
    static const bool checked = [] {
        const char* major = std::getenv("OUTBOX_TEST_PG_MAJOR");
        if (!major) return true;
        const auto version = Sql(server.conninfo("postgres")).scalar("SHOW server_version_num");
        if (version.substr(0, version.size() - 4) != major)
            throw std::runtime_error("OUTBOX_TEST_PG_MAJOR is " + std::string(major) + ", but the test server is " + version);
        BOOST_TEST_MESSAGE("PostgreSQL server_version_num " << version);
        return true;
    }();
    (void)checked;
    return server;
}

namespace {

BrokerClusterOptions& real_kafka_options() {
    static BrokerClusterOptions options;
    return options;
}

bool& real_kafka_started() {
    static bool started = false;
    return started;
}

}  // namespace

void configure_real_kafka(BrokerClusterOptions options) {
    if (real_kafka_started()) throw std::logic_error("configure_real_kafka() after the broker started");
    real_kafka_options() = std::move(options);
}

BrokerCluster& real_kafka() {
    real_kafka_started() = true;
    static BrokerCluster cluster(real_kafka_options());
    return cluster;
}

kafka::EmbeddedCluster& kafka_cluster() {
    static kafka::EmbeddedCluster cluster(3);
    return cluster;
}

std::string kafka_servers() {
    const char* choice = std::getenv("OUTBOX_TEST_KAFKA");
    if (choice && std::string(choice) == "mock") return kafka_cluster().bootstrap_servers();
    return real_kafka().bootstrap_servers();
}

namespace {

std::optional<std::string>& created_work_dir() {
    static std::optional<std::string> dir;
    return dir;
}

// The routers' configs and logs are what a failed test is debugged from, so they stay behind
// then (the path is printed); after a passing program they would only pile up in /tmp. A global
// fixture's teardown runs before the results of the whole program are summed up, so it watches
// the assertions itself.
class RemoveWorkDirIfPassed : public boost::unit_test::test_observer {
public:
    void setup() { boost::unit_test::framework::register_observer(*this); }
    void teardown() {
        boost::unit_test::framework::deregister_observer(*this);
        const auto& dir = created_work_dir();
        if (!dir) return;
        if (failed_) {
            BOOST_TEST_MESSAGE("router configs and logs kept in " << *dir);
            return;
        }
        std::error_code ignored;
        std::filesystem::remove_all(*dir, ignored);
    }

    void assertion_result(boost::unit_test::assertion_result result) override {
        if (result == boost::unit_test::AR_FAILED) failed_ = true;
    }
    void exception_caught(const boost::execution_exception&) override { failed_ = true; }
    void test_unit_aborted(const boost::unit_test::test_unit&) override { failed_ = true; }
    void test_unit_timed_out(const boost::unit_test::test_unit&) override { failed_ = true; }

private:
    bool failed_ = false;
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RemoveWorkDirIfPassed);

std::string work_dir() {
    static const std::string dir = [] { return *(created_work_dir() = make_temp_dir("outbox-test-")); }();
    return dir;
}

std::string create_outbox_database(const std::string& prefix) { return create_outbox_database(postgres(), prefix); }

std::string create_outbox_database(PgServer& server, const std::string& prefix) {
    const std::string database = server.create_database(prefix);
    Sql sql(server.conninfo(database));
    sql.exec(read_file(std::string(OUTBOX_SOURCE_DIR) + "/sql/outbox.sql"));
    return database;
}

std::string fetched_pg_bin_dir(int major) { return std::string(OUTBOX_PG_RUNTIME_DIR) + "/" + std::to_string(major) + "/bin"; }

PgServerOptions fetched_pg(int major) {
    PgServerOptions options;
    options.bin_dir = fetched_pg_bin_dir(major);
    return options;
}

std::string debezium_connector_json(const std::string& database, const std::string& replacement,
                                    const std::string& extra) {
    return R"({"name": "outbox", "config": {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1", "database.port": ")" + std::to_string(postgres().port()) + R"(",
        "database.user": "postgres", "database.dbname": ")" + database + R"(", "topic.prefix": "app",
        "slot.name": ")" + database + R"(", "publication.name": ")" + database + R"(",
        "transforms": "outbox", "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
        "transforms.outbox.route.topic.replacement": ")" + replacement + "\"" + extra + "}}";
}

std::string router_config(const std::string& database, const std::string& postgres_extra,
                          const std::string& top_extra, const std::string& outbox_section) {
    return router_config_for(postgres().conninfo(database), database, postgres_extra, top_extra, outbox_section);
}

std::string router_config_for(const std::string& conninfo, const std::string& database,
                              const std::string& postgres_extra, const std::string& top_extra,
                              const std::string& outbox_section) {
    return "postgres:\n"
           "  conninfo: \"" + conninfo + "\"\n"
           "  slot.name: " + database + "\n"
           "  publication.name: " + database + "\n"
           "  status.update.interval.ms: 200\n" +
           postgres_extra + outbox_section +
           "kafka:\n"
           "  bootstrap.servers: \"" + kafka_servers() + "\"\n"
           "  linger.ms: 1\n" +
           top_extra;
}

std::string sasl_router_config(const std::string& database, const std::string& topic,
                               const std::string& password_variable, const std::string& mechanism) {
    std::string config = router_config(database, "",
                                       "  security.protocol: SASL_PLAINTEXT\n"
                                       "  sasl.mechanisms: " + mechanism + "\n"
                                       "  sasl.username: " + std::string(kSaslUser) + "\n"
                                       "  sasl.password: \"${env:" + password_variable + "}\"\n"
                                       "shutdown.timeout.ms: 5000\n",
                                       "outbox:\n  route.topic.replacement: " + topic + "\n");
    const auto plain = real_kafka().bootstrap_servers();
    return config.replace(config.find(plain), plain.size(), real_kafka().sasl_bootstrap_servers());
}

std::string outbox_rows_sql(int first, int count, int keys, const std::string& type) {
    std::string sql = "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES ";
    for (int i = first; i < first + count; ++i) {
        if (i != first) sql += ", ";
        sql += "(md5('" + std::to_string(i) + "')::uuid, '" + type + "', 'key-" + std::to_string(i % keys) +
               "', 'Created', '{\"seq\": " + std::to_string(i) + "}')";
    }
    return sql;
}

int seq_of(const ConsumedRecord& record) {
    const std::string& value = record.value.value();
    return std::stoi(value.substr(value.find("\"seq\":") + 6));
}

std::set<int> sequences_in(const std::string& topic, std::size_t expected, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::set<int> seen;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        for (const auto& r : read_topic(kafka_servers(), topic, expected,
                                        std::max(left, std::chrono::milliseconds(1000))))
            seen.insert(seq_of(r));
        if (seen.size() >= expected || std::chrono::steady_clock::now() >= deadline) return seen;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

long peak_rss_kib(int pid) {
    const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
    const auto at = status.find("VmHWM:");
    return at == std::string::npos ? -1 : std::stol(status.substr(at + 6));
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string last_line(std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text.substr(text.rfind('\n') + 1);
}

std::uint64_t lsn_value(const std::string& text) { return parse_lsn(text).value_or(0); }

std::uint64_t confirmed_flush_lsn(const std::string& database, const std::string& slot) {
    Sql sql(postgres().conninfo(database));
    return lsn_value(sql.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
}

}  // namespace outbox::test
