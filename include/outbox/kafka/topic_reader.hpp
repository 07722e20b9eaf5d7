#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <functional>
#include <string>

namespace outbox::kafka {

// Reads every partition of `topic` (it has `partitions`) from the beginning with `consumer`
// (a consumer with enable.partition.eof), handing each record to `on_record`, until every
// partition is at its end and `enough()` agrees, or `deadline` passes. Returns whether it got
// to the end. A consume error is handed to `on_error`, which may throw; by default it is skipped.
// It stops early (returning false) once `stop_requested` holds, looked at every 200 ms.
bool read_topic_to_end(rd_kafka_t* consumer, const std::string& topic, int partitions,
                       std::chrono::steady_clock::time_point deadline,
                       const std::function<void(const rd_kafka_message_t&)>& on_record,
                       const std::function<bool()>& enough = {},
                       const std::function<void(const rd_kafka_message_t&)>& on_error = {},
                       const std::function<bool()>& stop_requested = {});

}  // namespace outbox::kafka
