#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "outbox/migration/connector_settings.hpp"
#include "outbox/migration/not_imported.hpp"

namespace outbox::migration {

struct MappedProducerProperties {
    std::vector<std::pair<std::string, std::string>> kafka;  // librdkafka names, in the settings' order
    std::vector<NotImported> not_imported;
};

// Kafka's Java producer properties as librdkafka's: most keep their name; sasl.mechanism,
// max.request.size, buffer.memory and the socket buffers are renamed; a PLAIN or SCRAM
// sasl.jaas.config becomes sasl.username and sasl.password; PEM truststores and PKCS#12 keystores
// carry over, Java keystores and serializers are listed. `resolve` turns a value's references into
// the router's (nullopt: a config provider with no equivalent). The last entry of a key wins.
MappedProducerProperties map_producer_properties(const std::vector<Setting>& producer,
                                                 const std::function<std::optional<std::string>(const Setting&)>& resolve);

}  // namespace outbox::migration
