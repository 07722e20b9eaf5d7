#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace outbox::test {

// Creates `topic` through the Admin API and waits until its partitions have leaders; throws with
// the broker's answer when creation fails (an existing topic is not an error).
void create_topic(const std::string& bootstrap_servers, const std::string& topic, int partitions,
                  int replication_factor, const std::map<std::string, std::string>& configs = {},
                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Creates `topic` with one partition per entry of `leaders_by_partition`, each with a single
// replica on that node id, and waits until they have leaders.
void create_topic_led_by(const std::string& bootstrap_servers, const std::string& topic,
                         const std::vector<int>& leaders_by_partition);

// The node id leading `partition` of `topic` (-1 when unknown within `timeout`).
int partition_leader(const std::string& bootstrap_servers, const std::string& topic, int partition,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

// How many partitions `topic` has (0 when the cluster does not know it).
int partitions_of(const std::string& bootstrap_servers, const std::string& topic);
// The value of one of `topic`'s configs as the broker describes it ("" when it cannot say).
std::string topic_config(const std::string& bootstrap_servers, const std::string& topic, const std::string& name);

}  // namespace outbox::test
