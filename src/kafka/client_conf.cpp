#include "outbox/kafka/client_conf.hpp"

#include "outbox/util/errors.hpp"

namespace outbox::kafka {
namespace {

void set_property(rd_kafka_conf_t* conf, const std::string& name, const std::string& value,
                  const config::Location& where) {
    char error[512];
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK)
        throw ConfigError(where.describe() + ": kafka." + name + ": " + error);
}

}  // namespace

ConfPtr client_conf(const config::KafkaSettings& settings, const std::string& bootstrap_servers,
                    const std::vector<std::pair<std::string, std::string>>& overrides) {
    ConfPtr conf(rd_kafka_conf_new());
    const config::Location built_in{"(built-in default)", 0};
    for (const auto& property : settings.properties)
        set_property(conf.get(), property.name, property.value, property.location);
    if (!bootstrap_servers.empty()) set_property(conf.get(), "bootstrap.servers", bootstrap_servers, built_in);
    for (const auto& [name, value] : overrides) set_property(conf.get(), name, value, built_in);
    return conf;
}

}  // namespace outbox::kafka
