#include "topic_admin.hpp"

#include <librdkafka/rdkafka.h>

#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "outbox/kafka/handles.hpp"

namespace outbox::test {
namespace {

kafka::HandlePtr admin_client(const std::string& bootstrap_servers) {
    kafka::ConfPtr conf(rd_kafka_conf_new());
    char error[512];
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"bootstrap.servers", bootstrap_servers},
                                      {"log_level", "3"}})
        if (rd_kafka_conf_set(conf.get(), name, value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK)
            throw std::runtime_error(error);
    kafka::HandlePtr client(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error, sizeof error));
    if (!client) throw std::runtime_error(error);
    conf.release();
    return client;
}

struct NewTopicDeleter {
    void operator()(rd_kafka_NewTopic_t* topic) const { rd_kafka_NewTopic_destroy(topic); }
};
struct EventDeleter {
    void operator()(rd_kafka_event_t* event) const { rd_kafka_event_destroy(event); }
};

// The leader of each partition, or an empty vector while the topic is unknown or leaderless.
std::vector<int> leaders(rd_kafka_t* client, const std::string& topic) {
    const rd_kafka_metadata_t* raw = nullptr;
    kafka::TopicPtr handle(rd_kafka_topic_new(client, topic.c_str(), nullptr));
    if (rd_kafka_metadata(client, 0, handle.get(), &raw, 5000) != RD_KAFKA_RESP_ERR_NO_ERROR) return {};
    kafka::MetadataPtr metadata(raw);
    if (metadata->topic_cnt != 1 || metadata->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) return {};
    std::vector<int> result;
    for (int p = 0; p < metadata->topics[0].partition_cnt; ++p) {
        const auto& partition = metadata->topics[0].partitions[p];
        if (partition.err != RD_KAFKA_RESP_ERR_NO_ERROR || partition.leader < 0) return {};
        result.resize(std::max<std::size_t>(result.size(), partition.id + 1));
        result[partition.id] = partition.leader;
    }
    return result;
}

}  // namespace

namespace {

void create_topic_as(const std::string& bootstrap_servers, const std::string& topic, int partitions,
                     int replication_factor, const std::map<std::string, std::string>& configs,
                     const std::vector<int>& leaders_by_partition, std::chrono::milliseconds timeout) {
    auto client = admin_client(bootstrap_servers);
    char error[512];
    std::unique_ptr<rd_kafka_NewTopic_t, NewTopicDeleter> new_topic(
        rd_kafka_NewTopic_new(topic.c_str(), partitions, replication_factor, error, sizeof error));
    if (!new_topic) throw std::runtime_error(error);
    for (const auto& [name, value] : configs)
        rd_kafka_NewTopic_set_config(new_topic.get(), name.c_str(), value.c_str());
    for (std::size_t partition = 0; partition < leaders_by_partition.size(); ++partition) {
        std::int32_t broker = leaders_by_partition[partition];
        if (rd_kafka_NewTopic_set_replica_assignment(new_topic.get(), static_cast<std::int32_t>(partition), &broker, 1,
                                                     error, sizeof error) != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw std::runtime_error(error);
    }
    kafka::QueuePtr queue(rd_kafka_queue_new(client.get()));
    rd_kafka_NewTopic_t* topics[] = {new_topic.get()};
    rd_kafka_CreateTopics(client.get(), topics, 1, nullptr, queue.get());
    std::unique_ptr<rd_kafka_event_t, EventDeleter> event(
        rd_kafka_queue_poll(queue.get(), static_cast<int>(timeout.count())));
    if (!event) throw std::runtime_error("CreateTopics " + topic + ": no answer");
    if (rd_kafka_event_error(event.get()))
        throw std::runtime_error("CreateTopics " + topic + ": " + rd_kafka_event_error_string(event.get()));
    size_t count = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &count);
    for (size_t i = 0; i < count; ++i) {
        const auto code = rd_kafka_topic_result_error(results[i]);
        if (code != RD_KAFKA_RESP_ERR_NO_ERROR && code != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
            throw std::runtime_error("CreateTopics " + topic + ": " + rd_kafka_topic_result_error_string(results[i]));
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (static_cast<int>(leaders(client.get(), topic).size()) != partitions) {
        if (std::chrono::steady_clock::now() >= deadline)
            throw std::runtime_error("topic " + topic + " has no leaders in time");
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace

void create_topic(const std::string& bootstrap_servers, const std::string& topic, int partitions,
                  int replication_factor, const std::map<std::string, std::string>& configs,
                  std::chrono::milliseconds timeout) {
    create_topic_as(bootstrap_servers, topic, partitions, replication_factor, configs, {}, timeout);
}

void create_topic_led_by(const std::string& bootstrap_servers, const std::string& topic,
                         const std::vector<int>& leaders_by_partition) {
    create_topic_as(bootstrap_servers, topic, static_cast<int>(leaders_by_partition.size()), -1, {},
                    leaders_by_partition, std::chrono::seconds(60));
}

int partition_leader(const std::string& bootstrap_servers, const std::string& topic, int partition,
                     std::chrono::milliseconds timeout) {
    auto client = admin_client(bootstrap_servers);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto found = leaders(client.get(), topic);
        if (partition < static_cast<int>(found.size())) return found[partition];
        if (std::chrono::steady_clock::now() >= deadline) return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

int partitions_of(const std::string& bootstrap_servers, const std::string& topic) {
    auto client = admin_client(bootstrap_servers);
    return static_cast<int>(leaders(client.get(), topic).size());
}

std::string topic_config(const std::string& bootstrap_servers, const std::string& topic, const std::string& name) {
    auto client = admin_client(bootstrap_servers);
    rd_kafka_ConfigResource_t* resource = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
    rd_kafka_queue_t* queue = rd_kafka_queue_new(client.get());
    rd_kafka_DescribeConfigs(client.get(), &resource, 1, nullptr, queue);
    std::unique_ptr<rd_kafka_event_t, EventDeleter> event(rd_kafka_queue_poll(queue, 10000));
    rd_kafka_ConfigResource_destroy(resource);
    std::string value;
    if (event && !rd_kafka_event_error(event.get())) {
        size_t count = 0;
        const auto** resources =
            rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(event.get()), &count);
        for (size_t r = 0; r < count; ++r) {
            size_t entries = 0;
            const auto** configs = rd_kafka_ConfigResource_configs(resources[r], &entries);
            for (size_t i = 0; i < entries; ++i)
                if (name == rd_kafka_ConfigEntry_name(configs[i]) && rd_kafka_ConfigEntry_value(configs[i]))
                    value = rd_kafka_ConfigEntry_value(configs[i]);
        }
    }
    event.reset();
    rd_kafka_queue_destroy(queue);
    return value;
}

}  // namespace outbox::test
