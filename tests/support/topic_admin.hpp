#pragma once

#include <chrono>
#include <map>
#include <string>

namespace outbox::test {

// Creates `topic` through the Admin API and waits until its partitions have leaders; throws with
// the broker's answer when creation fails (an existing topic is not an error).
void create_topic(const std::string& bootstrap_servers, const std::string& topic, int partitions,
                  int replication_factor, const std::map<std::string, std::string>& configs = {},
                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The node id leading `partition` of `topic` (-1 when unknown within `timeout`).
int partition_leader(const std::string& bootstrap_servers, const std::string& topic, int partition,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace outbox::test
