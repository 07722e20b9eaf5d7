#pragma once

#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_connector.hpp"

namespace outbox::kafka {

// The Kafka port in production: librdkafka clients made from the kafka settings.
class LibrdkafkaConnector final : public KafkaConnector {
public:
    // `bootstrap_servers` overrides kafka.bootstrap.servers when non-empty (embedded cluster).
    LibrdkafkaConnector(const config::KafkaSettings& settings, std::string bootstrap_servers)
        : settings_(settings), bootstrap_servers_(std::move(bootstrap_servers)) {}

    std::unique_ptr<KafkaProducer> producer(KafkaProducer::DeliveryHandler on_delivery,
                                            const std::vector<std::pair<std::string, std::string>>& overrides) override;
    std::unique_ptr<OffsetsTopic> offsets_topic(const std::string& topic, const SourceIdentity& source) override;

private:
    const config::KafkaSettings& settings_;
    const std::string bootstrap_servers_;
};

}  // namespace outbox::kafka
