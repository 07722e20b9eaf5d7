#include "outbox/kafka/librdkafka_connector.hpp"

#include "outbox/kafka/offset_store.hpp"
#include "outbox/kafka/producer.hpp"

namespace outbox::kafka {

std::unique_ptr<KafkaProducer> LibrdkafkaConnector::producer(
    KafkaProducer::DeliveryHandler on_delivery, const std::vector<std::pair<std::string, std::string>>& overrides) {
    return std::make_unique<Producer>(settings_, bootstrap_servers_, std::move(on_delivery), overrides);
}

std::unique_ptr<OffsetsTopic> LibrdkafkaConnector::offsets_topic(const std::string& topic, const SourceIdentity& source) {
    return std::make_unique<OffsetStore>(settings_, bootstrap_servers_, topic, source);
}

}  // namespace outbox::kafka
