#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>

#include "outbox/config/config.hpp"
#include "outbox/kafka/admin_requests.hpp"
#include "outbox/kafka/bootstrap_reachability.hpp"
#include "outbox/kafka/embedded_cluster.hpp"
#include "outbox/kafka/producer.hpp"
#include "outbox/migration/config_import.hpp"
#include "outbox/observability/endpoints.hpp"
#include "outbox/observability/http_server.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/observability/progress_log.hpp"
#include "outbox/observability/slot_monitor.hpp"
#include "outbox/pipeline/pipeline.hpp"
#include "outbox/pipeline/shutdown_signal.hpp"
#include "outbox/replay/outbox_replay.hpp"
#include "outbox/registry/schema_registry_client.hpp"
#include "outbox/replication/connection_settings.hpp"
#include "outbox/replication/deadline_wait.hpp"
#include "outbox/replication/source_setup.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace {

constexpr int kExitClean = 0;
constexpr int kExitDefinite = 1;
constexpr int kExitUsage = 2;
constexpr int kExitFenced = 3;
// --check's limit for the replication connection when postgres.receive.timeout.ms is off.
constexpr long kCheckPostgresLimitMs = 30000;

constexpr const char* kUsage =
    "usage: outbox-router --config FILE [--check]\n"
    "       outbox-router import CONNECTOR [WORKER_PROPERTIES]\n"
    "       outbox-router replay --config FILE [--ids FIRST..LAST] [--since TIME] [--until TIME]\n"
    "       outbox-router --help | --version\n"
    "\n"
    "Streams INSERTs into PostgreSQL outbox tables (logical replication, pgoutput) to Kafka,\n"
    "routed like Debezium's Outbox Event Router, and confirms WAL positions to PostgreSQL only\n"
    "after Kafka has acknowledged every event up to them.\n"
    "\n"
    "  --config FILE  YAML configuration (see docs/configuration.md)\n"
    "  --check        validate the configuration, PostgreSQL (slot, publication, outbox columns)\n"
    "                 and Kafka (metadata), one line per check; exit 0 if all pass, 1 otherwise\n"
    "                 (WARN lines, such as a failover that could lose or invent events, do not fail)\n"
    "  import         write the router configuration equivalent to a Debezium PostgreSQL connector\n"
    "                 with the Outbox EventRouter (Kafka Connect JSON or .properties, or Debezium\n"
    "                 Server's application.properties; optionally the Connect worker's properties)\n"
    "                 to standard output; what has no equivalent is listed on standard error\n"
    "  replay         publish again the events of outbox rows still in the tables, by id range\n"
    "                 and/or commit-time range (track_commit_timestamp), as the stream routes them\n"
    "  --help         show this text\n"
    "  --version      show the version\n"
    "\n"
    "Exit status: 0 clean stop, 1 definite error (cause on the last line), 2 usage error,\n"
    "3 fenced: another instance with this transactional.id took over (exactly-once).\n";

struct Arguments {
    std::string config_path;
    bool check = false;
};

std::optional<Arguments> parse_arguments(int argc, char** argv, int& exit_code) {
    Arguments args;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            exit_code = kExitClean;
            return std::nullopt;
        }
        if (arg == "--version") {
            std::cout << "outbox-router " << OUTBOX_ROUTER_VERSION << "\n";
            exit_code = kExitClean;
            return std::nullopt;
        }
        if (arg == "--check") {
            args.check = true;
        } else if (arg == "--config" && i + 1 < argc) {
            args.config_path = argv[++i];
        } else if (arg.starts_with("--config=")) {
            args.config_path = arg.substr(std::strlen("--config="));
        } else {
            std::cerr << "outbox-router: unknown or incomplete argument \"" << arg << "\"\n" << kUsage;
            exit_code = kExitUsage;
            return std::nullopt;
        }
    }
    if (args.config_path.empty()) {
        std::cerr << "outbox-router: --config FILE is required\n" << kUsage;
        exit_code = kExitUsage;
        return std::nullopt;
    }
    return args;
}

std::string masked(std::string text, const outbox::config::Config& config) {
    // libpq error texts can echo parts of the conninfo; never let a password through.
    const std::string secret_free = outbox::log::mask_conninfo(config.postgres.conninfo);
    if (auto at = text.find(config.postgres.conninfo); at != std::string::npos)
        text.replace(at, config.postgres.conninfo.size(), secret_free);
    return outbox::log::mask_conninfo(text);
}

std::unique_ptr<outbox::kafka::EmbeddedCluster> start_embedded_kafka(const outbox::config::Config& config) {
    if (config.kafka.embedded_brokers <= 0) return nullptr;
    auto cluster = std::make_unique<outbox::kafka::EmbeddedCluster>(config.kafka.embedded_brokers);
    outbox::log::info("embedded Kafka (librdkafka mock cluster, " + std::to_string(config.kafka.embedded_brokers) +
                      " broker(s)) listening at " + cluster->bootstrap_servers());
    return cluster;
}

std::optional<std::string> read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

int run_import(int argc, char** argv) {
    if (argc < 3 || argc > 4) {
        std::cerr << "outbox-router: import takes a connector file and optionally a worker's properties\n" << kUsage;
        return kExitUsage;
    }
    const std::string connector_path = argv[2];
    const std::optional<std::string> worker_path = argc == 4 ? std::optional<std::string>(argv[3]) : std::nullopt;
    try {
        const auto connector = read_whole_file(connector_path);
        if (!connector) throw outbox::ConfigError(connector_path + ": cannot read the file");
        std::optional<std::string> worker;
        if (worker_path && !(worker = read_whole_file(*worker_path)))
            throw outbox::ConfigError(*worker_path + ": cannot read the file");
        const auto settings =
            outbox::migration::read_connector_settings(*connector, connector_path, worker, worker_path.value_or(""));
        const auto imported = outbox::migration::import_debezium(
            settings, connector_path + (worker_path ? " and " + *worker_path : ""));
        std::cout << imported.yaml;
        for (const auto& n : imported.not_imported)
            std::cerr << "outbox-router import: not imported: " << n.origin << ": " << n.key << ": " << n.reason << "\n";
        return kExitClean;
    } catch (const std::exception& e) {
        std::cerr << "outbox-router: " << e.what() << "\n";
        return kExitDefinite;
    }
}

int run_checks(const outbox::config::Config& config) {
    bool all_ok = true;
    auto report = [&](bool ok, const std::string& line) {
        all_ok = all_ok && ok;
        std::cout << (ok ? "ok    " : "FAIL  ") << masked(line, config) << std::endl;
    };
    try {
        // Builds the routes as a start would: an invalid regex or a bad table.overrides entry fails here.
        const outbox::router::OutboxRouter router(config);
        report(true, "config: " + config.source_file + " is valid");
    } catch (const std::exception& e) {
        report(false, e.what());
    }
    try {
        // Bounded like the stream's set-up: a server that accepts and then says nothing fails the check.
        const auto limit = std::chrono::milliseconds(config.postgres.receive_timeout_ms > 0 ? config.postgres.receive_timeout_ms
                                                                                          : kCheckPostgresLimitMs);
        outbox::replication::PgConnection connection(
            outbox::replication::replication_conninfo(config.postgres.conninfo, limit),
            outbox::replication::PgConnection::Mode::logical_replication,
            outbox::replication::deadline_wait(std::chrono::steady_clock::now() + limit, limit,
                                               "checking the replication connection"));
        outbox::replication::SourceState state;
        const auto warn = [&](const std::string& line) { std::cout << "WARN  " << masked(line, config) << std::endl; };
        outbox::replication::SourceSetup(config, connection, outbox::replication::SourceSetup::Mode::check, report, warn)
            .run(state);
    } catch (const std::exception& e) {
        report(false, e.what());
    }
    try {
        const auto embedded = start_embedded_kafka(config);
        outbox::kafka::Producer producer(config.kafka, embedded ? embedded->bootstrap_servers() : "",
                                         [](const outbox::kafka::DeliveryReport&) {});
        auto error = producer.check_metadata(10000);
        producer.serve(0);  // runs the error callback, which records refused credentials
        if (!error.empty() && !producer.authentication_failure_after_probe().empty()) {
            error = producer.authentication_failure();
        } else if (!error.empty() && !producer.refusal_blocking_delivery().empty()) {
            error = producer.refusal_blocking_delivery();
        } else if (!error.empty()) {
            // librdkafka says only "Broker transport failure": name what stops the connection.
            auto unreachable = outbox::kafka::unreachable_bootstrap_brokers(producer.bootstrap_servers(), std::chrono::seconds(3));
            if (!unreachable.empty()) error = std::move(unreachable);
        }
        report(error.empty(), error.empty() ? "kafka: cluster metadata reachable" : "kafka: cannot read cluster metadata: " + error);
        if (error.empty() && !producer.refusal_blocking_delivery().empty())
            std::cout << "WARN  " << masked(producer.refusal_blocking_delivery(), config)
                      << " (records for the partitions it leads cannot be delivered)" << std::endl;
    } catch (const std::exception& e) {
        report(false, e.what());
    }
    for (const auto& [side, converter, avro] :
         {std::tuple{"key", config.format.key, &config.format.key_avro},
          std::tuple{"value", config.format.value, &config.format.value_avro}}) {
        if (converter != outbox::config::Converter::avro) continue;
        try {
            outbox::registry::SchemaRegistryClient(*avro, [] { return false; }).check();
            report(true, std::string("schema registry (") + side + ".converter): reachable, credentials accepted");
        } catch (const std::exception& e) {
            report(false, std::string("schema registry (") + side + ".converter): " + e.what());
        }
    }
    return all_ok ? kExitClean : kExitDefinite;
}

// Kafka admin requests still running were cancelled when their owners went (admin_requests.hpp)
// and end within seconds. Past the bound the process exits without static destructors and the
// libraries' exit-time clean-up (OpenSSL's), which such a thread could still be using; silently,
// so that the last line still names the cause of a definite error.
int after_kafka_threads(int status) {
    if (outbox::kafka::AdminRequests::wait_for_all(std::chrono::seconds(3))) return status;
    std::fflush(nullptr);
    std::quick_exit(status);
}

int router_main(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "import") return run_import(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "replay") return outbox::replay::run_replay_command(argc, argv);
    int exit_code = kExitClean;
    const auto args = parse_arguments(argc, argv, exit_code);
    if (!args) return exit_code;

    std::optional<outbox::config::Config> config;
    try {
        config = outbox::config::load_config(args->config_path);
    } catch (const std::exception& e) {
        std::cerr << "outbox-router: " << e.what() << "\n";
        return kExitDefinite;
    }
    outbox::log::set_level(config->log.level);
    outbox::log::set_format(config->log.format);
    if (args->check) return run_checks(*config);

    outbox::pipeline::ShutdownSignal::install();
    try {
        // Declared before the pipeline so that they outlive it: the pipeline writes the metrics.
        outbox::observability::Metrics metrics(outbox::observability::certificate_files(*config));
        std::optional<outbox::observability::HttpServer> http;
        std::optional<outbox::observability::SlotMonitor> slot_monitor;
        if (!config->metrics.listen.empty()) {
            http.emplace(config->metrics.host, config->metrics.port,
                         [&metrics](std::string_view method, std::string_view path) {
                             return outbox::observability::handle_request(metrics, method, path);
                         });
            outbox::log::info("serving /metrics, /healthz and /readyz on " + config->metrics.listen);
            slot_monitor.emplace(config->postgres.conninfo, config->postgres.slot_name, metrics);
        }
        const outbox::observability::ProgressLog progress(metrics,
                                                          std::chrono::milliseconds(config->log.progress_interval_ms));
        const auto embedded = start_embedded_kafka(*config);
        outbox::pipeline::Pipeline pipeline(*config, embedded ? embedded->bootstrap_servers() : "", metrics);
        pipeline.run();
        return kExitClean;
    } catch (const std::exception& e) {
        // The last line names the cause, in the configured log format.
        if (config->log.format == outbox::log::Format::json) outbox::log::error(masked(e.what(), *config));
        else std::cerr << "outbox-router: " << masked(e.what(), *config) << "\n";
        return dynamic_cast<const outbox::ProducerFencedError*>(&e) ? kExitFenced : kExitDefinite;
    }
}

}  // namespace

int main(int argc, char** argv) { return after_kafka_threads(router_main(argc, argv)); }
