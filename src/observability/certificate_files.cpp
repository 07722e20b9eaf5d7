#include "outbox/observability/certificate_files.hpp"

#include <libpq-fe.h>

#include <cstdlib>
#include <memory>
#include <tuple>

#include "outbox/config/config.hpp"

namespace outbox::observability {
namespace {

struct ConninfoOptionsFree {
    void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};

// A conninfo keyword's value as libpq takes it: from the conninfo, else from its environment
// variable (PQconninfoParse applies no defaults).
std::string libpq_setting(const PQconninfoOption* options, const std::string& keyword, const char* variable) {
    for (const PQconninfoOption* o = options; o && o->keyword; ++o)
        if (keyword == o->keyword && o->val && *o->val) return o->val;
    const char* from_environment = std::getenv(variable);
    return from_environment ? from_environment : "";
}

}  // namespace

std::vector<CertificateFile> certificate_files(const config::Config& config) {
    std::vector<CertificateFile> files;
    const auto add = [&](std::string use, const std::string& path) {
        if (!path.empty()) files.push_back({std::move(use), path});
    };
    char* message = nullptr;
    const std::unique_ptr<PQconninfoOption, ConninfoOptionsFree> options(
        PQconninfoParse(config.postgres.conninfo.c_str(), &message));
    PQfreemem(message);
    if (options) {
        add("postgres.sslcert", libpq_setting(options.get(), "sslcert", "PGSSLCERT"));
        const std::string root = libpq_setting(options.get(), "sslrootcert", "PGSSLROOTCERT");
        if (root != "system") add("postgres.sslrootcert", root);
    }
    for (const auto& property : config.kafka.properties) {
        if (property.name == "ssl.certificate.location") add("kafka." + property.name, property.value);
        if (property.name == "ssl.ca.location" && property.value != "probe") add("kafka." + property.name, property.value);
    }
    for (const auto& [side, converter, avro] :
         {std::tuple{"key", config.format.key, &config.format.key_avro},
          std::tuple{"value", config.format.value, &config.format.value_avro}}) {
        if (converter != config::Converter::avro) continue;
        const std::string prefix = std::string(side) + ".converter.schema.registry.ssl.";
        add(prefix + "truststore.location", avro->ca_location);
        add(prefix + "keystore.location", avro->certificate_location);
    }
    return files;
}

}  // namespace outbox::observability
