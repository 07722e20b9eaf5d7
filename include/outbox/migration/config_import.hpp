#pragma once

#include <string>
#include <vector>

#include "outbox/migration/connector_settings.hpp"
#include "outbox/migration/not_imported.hpp"

namespace outbox::migration {

struct ImportedConfig {
    std::string yaml;  // a router configuration, with the settings not imported listed at its end
    std::vector<NotImported> not_imported;
};

// The router configuration equivalent to a Debezium PostgreSQL connector with the Outbox
// EventRouter: database.* to postgres.conninfo, the connector's slot, publication and tables to
// postgres:, each EventRouter's options to outbox: (or outbox.table.overrides when a predicate
// picks its table), Kafka producer properties to their librdkafka names under kafka:, and Kafka
// Connect's error and exactly-once settings to the router's. Whatever has no equivalent is
// listed, never dropped silently. Throws ConfigError for a connector that is not PostgreSQL's.
ImportedConfig import_debezium(const ConnectorSettings& settings, const std::string& source_description);

}  // namespace outbox::migration
