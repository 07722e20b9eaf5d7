#define BOOST_TEST_MODULE compose
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"

// No Docker engine runs here, so the stack is checked as files: docker/compose.yaml, what it
// mounts, and the router config it mounts (which must pass the router's own validation).

namespace fs = std::filesystem;

namespace {

const fs::path kSource = OUTBOX_SOURCE_DIR;
const fs::path kDocker = kSource / "docker";

YAML::Node compose() {
    static const YAML::Node file = YAML::LoadFile((kDocker / "compose.yaml").string());
    return file;
}

YAML::Node service(const std::string& name) {
    const YAML::Node node = compose()["services"][name];
    BOOST_REQUIRE_MESSAGE(node.IsMap(), "service " << name << " is missing");
    return node;
}

std::string text_of(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Mount {
    std::string source;
    std::string target;
};

// "source:target[:mode]" short syntax.
std::vector<Mount> mounts(const YAML::Node& svc) {
    std::vector<Mount> result;
    for (const auto& item : svc["volumes"]) {
        const std::string spec = item.as<std::string>();
        const auto first = spec.find(':');
        const auto second = spec.find(':', first + 1);
        result.push_back({spec.substr(0, first), spec.substr(first + 1, second - first - 1)});
    }
    return result;
}

// A bind mount's host path, relative to the compose file as compose resolves it.
fs::path host_path(const Mount& mount) { return fs::weakly_canonical(kDocker / mount.source); }

std::string mount_source_for(const YAML::Node& svc, const std::string& target) {
    for (const auto& mount : mounts(svc))
        if (mount.target == target) return host_path(mount).string();
    return {};
}

std::string joined(const YAML::Node& sequence) {
    std::string text;
    for (const auto& item : sequence) text += item.as<std::string>() + " ";
    return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(stack_has_the_four_services) {
    std::set<std::string> names;
    for (const auto& entry : compose()["services"]) names.insert(entry.first.as<std::string>());
    for (const char* expected : {"postgres", "kafka", "router", "sample-writer"})
        BOOST_TEST(names.count(expected) == 1u, expected);
}

BOOST_AUTO_TEST_CASE(every_bind_mount_exists_and_named_volumes_are_declared) {
    for (const auto& entry : compose()["services"]) {
        if (!entry.second["volumes"]) continue;
        for (const auto& mount : mounts(entry.second)) {
            BOOST_TEST_CONTEXT(entry.first.as<std::string>() << ": " << mount.source) {
                if (mount.source.starts_with(".")) BOOST_TEST(fs::exists(host_path(mount)));
                else BOOST_TEST(compose()["volumes"][mount.source].IsDefined());
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(postgres_16_decodes_logically_and_loads_the_schema_from_sql) {
    const auto postgres = service("postgres");
    BOOST_TEST(postgres["image"].as<std::string>().starts_with("postgres:16"));
    BOOST_TEST(joined(postgres["command"]).find("wal_level=logical") != std::string::npos);
    BOOST_TEST(mount_source_for(postgres, "/docker-entrypoint-initdb.d/10-outbox.sql") ==
               fs::weakly_canonical(kSource / "sql/outbox.sql").string());
    // The role script runs after the schema (initdb.d runs in name order) and grants no more than needed.
    const std::string role_script = mount_source_for(postgres, "/docker-entrypoint-initdb.d/20-outbox-role.sh");
    BOOST_REQUIRE(!role_script.empty());
    const std::string script = text_of(role_script);
    BOOST_TEST(script.find("CREATE ROLE outbox LOGIN REPLICATION") != std::string::npos);
    BOOST_TEST(script.find("GRANT") == std::string::npos);
    BOOST_TEST(script.find("CREATE PUBLICATION outbox_router FOR TABLE public.outbox") != std::string::npos);
    BOOST_TEST(postgres["environment"]["OUTBOX_PASSWORD"].IsDefined());
    BOOST_TEST(postgres["healthcheck"].IsDefined());
}

BOOST_AUTO_TEST_CASE(kafka_is_a_single_kraft_node_the_router_can_reach) {
    const auto kafka = service("kafka");
    BOOST_TEST(kafka["image"].as<std::string>().starts_with("apache/kafka:"));
    const auto env = kafka["environment"];
    BOOST_TEST(env["KAFKA_PROCESS_ROLES"].as<std::string>() == "broker,controller");
    BOOST_TEST(env["KAFKA_CONTROLLER_QUORUM_VOTERS"].as<std::string>() == "1@kafka:9093");
    BOOST_TEST(env["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"].as<int>() == 1);
    BOOST_TEST(env["KAFKA_ADVERTISED_LISTENERS"].as<std::string>().find("//kafka:9092") != std::string::npos);
    BOOST_TEST(env["KAFKA_ADVERTISED_LISTENERS"].as<std::string>().find("//localhost:29092") != std::string::npos);
    BOOST_TEST(env["CLUSTER_ID"].as<std::string>().size() == 22u);  // a base64-encoded UUID
}

BOOST_AUTO_TEST_CASE(router_runs_the_compose_config_which_passes_validation) {
    const auto router = service("router");
    BOOST_TEST(router["build"]["dockerfile"].as<std::string>() == "docker/Dockerfile");
    BOOST_TEST(fs::exists(kDocker / router["build"]["context"].as<std::string>() / "docker/Dockerfile"));
    BOOST_TEST(router["depends_on"]["postgres"]["condition"].as<std::string>() == "service_healthy");
    BOOST_TEST(router["depends_on"]["kafka"]["condition"].as<std::string>() == "service_healthy");
    const std::string config_path = mount_source_for(router, "/etc/outbox-router/router.yaml");
    BOOST_TEST(config_path == fs::weakly_canonical(kSource / "config/compose.yaml").string());

    // Set what the container's environment sets, then load it exactly as --check would.
    for (const auto& variable : router["environment"])
        BOOST_REQUIRE(setenv(variable.first.as<std::string>().c_str(), "from-compose", 1) == 0);
    const auto config = outbox::config::load_config(config_path);
    BOOST_TEST(config.postgres.conninfo.find("host=postgres") != std::string::npos);
    BOOST_TEST(config.postgres.conninfo.find("password=from-compose") != std::string::npos);
    BOOST_TEST((config.postgres.publication_autocreate == outbox::config::PublicationAutocreate::disabled));
    BOOST_REQUIRE(!config.kafka.properties.empty());
    BOOST_TEST(config.kafka.properties[0].name == "bootstrap.servers");
    BOOST_TEST(config.kafka.properties[0].value == "kafka:9092");
    // The published port must reach the listener inside the container.
    BOOST_TEST(config.metrics.host == "0.0.0.0");
    BOOST_TEST(router["ports"][0].as<std::string>().ends_with(":" + std::to_string(config.metrics.port)));
}

BOOST_AUTO_TEST_CASE(sample_writer_runs_once_after_the_slot_exists) {
    const auto writer = service("sample-writer");
    BOOST_TEST(writer["restart"].as<std::string>() == "no");
    BOOST_TEST(mount_source_for(writer, "/sql/demo-orders.sql") ==
               fs::weakly_canonical(kSource / "sql/demo-orders.sql").string());
    const std::string command = joined(writer["command"]);
    BOOST_TEST(command.find("pg_replication_slots") != std::string::npos);
    BOOST_TEST(command.find("-f /sql/demo-orders.sql") != std::string::npos);
}

namespace {

// Output of a shell command (the test's own tools: readelf, ldd, dpkg).
std::string command_output(const std::string& command) {
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    BOOST_REQUIRE_MESSAGE(pipe, command);
    char buffer[4096];
    while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    BOOST_REQUIRE_MESSAGE(pclose(pipe) == 0, command << ": " << output);
    return output;
}

}  // namespace

BOOST_AUTO_TEST_CASE(image_installs_the_package_of_every_library_the_router_links) {
    // The runtime stage installs shared libraries by package name; a library added to the link
    // but not to that list would make an image whose binary cannot start.
    const std::string dockerfile = text_of(kDocker / "Dockerfile");
    const auto runtime = dockerfile.find("\nFROM debian:12-slim\n");
    BOOST_REQUIRE(runtime != std::string::npos);
    const std::string runtime_stage = dockerfile.substr(runtime);
    const std::string binary = OUTBOX_ROUTER_BINARY;
    // In debian:12-slim already: the C and C++ runtimes.
    const std::set<std::string> in_base_image = {"libc6", "libstdc++6", "libgcc-s1"};
    std::istringstream needed(command_output("readelf -d " + binary + " | sed -n 's/.*Shared library: \\[\\(.*\\)\\]/\\1/p'"));
    std::size_t checked = 0;
    for (std::string soname; std::getline(needed, soname);) {
        const std::string path = command_output("ldd " + binary + " | awk '$1 == \"" + soname + "\" {print $3}'");
        BOOST_REQUIRE_MESSAGE(!path.empty(), soname << " does not resolve");
        // With /lib a link to /usr/lib, dpkg knows some libraries only under /lib.
        const std::string owner = command_output("f=$(readlink -f " + path.substr(0, path.find('\n')) +
                                                 "); dpkg -S \"$f\" 2>/dev/null || dpkg -S \"${f#/usr}\"");
        const std::string package = owner.substr(0, owner.find(':'));
        ++checked;
        // A sanitizer build (make sanitize) links its runtimes; the image is built without them.
        if (in_base_image.contains(package) || soname.starts_with("libasan") || soname.starts_with("libubsan")) continue;
        BOOST_TEST(runtime_stage.find(" " + package + " ") != std::string::npos,
                   soname << " comes from " << package << ", which the runtime stage does not install");
    }
    BOOST_TEST(checked >= 6u);  // libpq, librdkafka, yaml-cpp, pcre2, microhttpd, libc, ...
}

BOOST_AUTO_TEST_CASE(image_is_multi_stage_debian_12_and_runs_unprivileged) {
    const std::string dockerfile = text_of(kDocker / "Dockerfile");
    BOOST_TEST(dockerfile.find("FROM debian:12-slim AS build") != std::string::npos);
    BOOST_TEST(dockerfile.find("\nFROM debian:12-slim\n") != std::string::npos);
    BOOST_TEST(dockerfile.find("COPY --from=build") != std::string::npos);
    BOOST_TEST(dockerfile.find("\nUSER 10001:10001\n") != std::string::npos);
    // Every directory the build copies exists, so the build context is complete.
    std::istringstream lines(dockerfile);
    for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("COPY ") || line.starts_with("COPY --from")) continue;
        const std::string source = line.substr(5, line.find(' ', 5) - 5);
        BOOST_TEST(fs::exists(kSource / source), line);
    }
}
