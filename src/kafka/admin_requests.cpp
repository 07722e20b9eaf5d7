#include "outbox/kafka/admin_requests.hpp"

#include <thread>

namespace outbox::kafka {
namespace {

constexpr int kLookupTimeoutMs = 10000;
constexpr int kCreateTimeoutMs = 30000;

using Answer = KafkaProducer::AdminAnswer;

Answer look_up_in(rd_kafka_t* client, const std::string& topic) {
    const rd_kafka_metadata_t* raw = nullptr;
    if (const auto error = rd_kafka_metadata(client, 1, nullptr, &raw, kLookupTimeoutMs))
        return {error, rd_kafka_err2str(error), 0};
    const MetadataPtr metadata(raw);
    for (int i = 0; i < metadata->topic_cnt; ++i) {
        const auto& t = metadata->topics[i];
        if (topic != t.topic) continue;
        if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR && t.err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
            return {t.err, rd_kafka_err2str(t.err), 0};
        return {RD_KAFKA_RESP_ERR_NO_ERROR, {}, t.partition_cnt};
    }
    return {RD_KAFKA_RESP_ERR_NO_ERROR, {}, 0};
}

Answer create_in(rd_kafka_t* client, const std::string& topic, int partitions, int replication_factor,
                 const std::vector<std::pair<std::string, std::string>>& configs) {
    char error[512];
    NewTopicPtr new_topic(rd_kafka_NewTopic_new(topic.c_str(), partitions, replication_factor, error, sizeof error));
    if (!new_topic) return {RD_KAFKA_RESP_ERR__INVALID_ARG, error, 0};
    for (const auto& [name, value] : configs)
        if (const auto err = rd_kafka_NewTopic_set_config(new_topic.get(), name.c_str(), value.c_str()))
            return {err, "topic config " + name + ": " + rd_kafka_err2str(err), 0};
    const QueuePtr queue(rd_kafka_queue_new(client));
    rd_kafka_NewTopic_t* topics[] = {new_topic.get()};
    rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(client, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_request_timeout(options, kCreateTimeoutMs, error, sizeof error);
    rd_kafka_CreateTopics(client, topics, 1, options, queue.get());
    rd_kafka_AdminOptions_destroy(options);
    const EventPtr event(rd_kafka_queue_poll(queue.get(), kCreateTimeoutMs + 1000));
    if (!event) return {RD_KAFKA_RESP_ERR__TIMED_OUT, "no answer to CreateTopics", 0};
    if (const auto err = rd_kafka_event_error(event.get())) return {err, rd_kafka_event_error_string(event.get()), 0};
    size_t count = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &count);
    if (count != 1) return {RD_KAFKA_RESP_ERR__FAIL, "CreateTopics answered for " + std::to_string(count) + " topics", 0};
    const auto err = rd_kafka_topic_result_error(results[0]);
    const char* message = rd_kafka_topic_result_error_string(results[0]);
    return {err, message ? message : rd_kafka_err2str(err), 0};
}

}  // namespace

// The thread owns its client and its slot's share; it outlives this object if need be.
template <typename Request>
void AdminRequests::start(std::string_view topic, Request request) {
    auto slot = std::make_shared<Slot>();
    slots_[std::string(topic)] = slot;
    rd_kafka_conf_t* conf = rd_kafka_conf_dup(conf_.get());
    std::thread([conf, slot, request = std::move(request)] {
        char error[512];
        HandlePtr client(rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error));
        Answer answer = client ? request(client.get()) : Answer{RD_KAFKA_RESP_ERR__FAIL, error, 0};
        if (!client) rd_kafka_conf_destroy(conf);
        const std::lock_guard lock(slot->mutex);
        slot->answer = std::move(answer);
    }).detach();
}

void AdminRequests::look_up(std::string_view topic) {
    start(topic, [name = std::string(topic)](rd_kafka_t* client) { return look_up_in(client, name); });
}

void AdminRequests::create(std::string_view topic, int partitions, int replication_factor,
                           const std::vector<std::pair<std::string, std::string>>& configs) {
    start(topic, [name = std::string(topic), partitions, replication_factor, configs](rd_kafka_t* client) {
        return create_in(client, name, partitions, replication_factor, configs);
    });
}

std::optional<KafkaProducer::AdminAnswer> AdminRequests::answer(std::string_view topic) {
    const auto found = slots_.find(topic);
    if (found == slots_.end()) return std::nullopt;
    std::optional<Answer> answer;
    {
        const std::lock_guard lock(found->second->mutex);
        answer = std::move(found->second->answer);
    }
    if (answer) slots_.erase(found);
    return answer;
}

}  // namespace outbox::kafka
