#include "outbox/kafka/topic_reader.hpp"

#include <set>

#include "outbox/kafka/handles.hpp"

namespace outbox::kafka {

bool read_topic_to_end(rd_kafka_t* consumer, const std::string& topic, int partitions,
                       std::chrono::steady_clock::time_point deadline,
                       const std::function<void(const rd_kafka_message_t&)>& on_record,
                       const std::function<bool()>& enough,
                       const std::function<void(const rd_kafka_message_t&)>& on_error,
                       const std::function<bool()>& stop_requested) {
    const PartitionListPtr assignment(rd_kafka_topic_partition_list_new(partitions));
    for (int p = 0; p < partitions; ++p)
        rd_kafka_topic_partition_list_add(assignment.get(), topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(consumer, assignment.get());
    std::set<int> at_end;
    while (std::chrono::steady_clock::now() < deadline && !(stop_requested && stop_requested())) {
        const MessagePtr message(rd_kafka_consumer_poll(consumer, 200));
        if (!message) continue;
        if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            at_end.insert(message->partition);
        } else if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            at_end.erase(message->partition);
            on_record(*message);
        } else if (on_error) {
            on_error(*message);
        }
        if (static_cast<int>(at_end.size()) == partitions && (!enough || enough())) return true;
    }
    return false;
}

}  // namespace outbox::kafka
