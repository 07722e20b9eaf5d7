#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "broker_node.hpp"

namespace outbox::test {

struct BrokerClusterOptions {
    int nodes = 1;  // 1, or 3 for replication factor 3 with min.insync.replicas=2
    bool sasl = false;  // adds a SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-512) and the user below
    // TLS listeners on every node (ports are chosen here); a SASL_SSL one knows the user below.
    std::vector<TlsListenerSpec> tls_listeners;
    // The TLS listeners of the nodes named (node id), in place of tls_listeners: e.g. one node
    // presenting another certificate. Keep the listeners' names the same on every node.
    std::map<int, std::vector<TlsListenerSpec>> node_tls_listeners;
    std::map<std::string, std::string> properties;  // server.properties of every node
    std::string runtime_libs;  // the broker's jars; empty for kafka_runtime_libs() (Kafka 4.x)
};

// The user a SASL cluster knows, for PLAIN and SCRAM-SHA-512.
inline constexpr const char* kSaslUser = "outbox";
inline constexpr const char* kSaslPassword = "outbox-secret-3f9c";

// Real Apache Kafka nodes (KRaft, each broker and controller, static quorum) on free loopback
// ports in a temporary directory, started by the constructor and waited for until every node
// answers metadata and its transaction coordinator is loaded (a fresh broker answers the first
// producer ids with COORDINATOR_LOAD_IN_PROGRESS, which clients log as a warning); killed and
// removed by the destructor. A node that does not come up throws
// with the tail of its log.
class BrokerCluster {
public:
    explicit BrokerCluster(BrokerClusterOptions options = {});
    ~BrokerCluster();
    BrokerCluster(const BrokerCluster&) = delete;
    BrokerCluster& operator=(const BrokerCluster&) = delete;

    std::string bootstrap_servers() const;       // PLAINTEXT listeners of all nodes
    std::string sasl_bootstrap_servers() const;  // SASL listeners (sasl clusters only)
    // The TLS listener `name` of all nodes, as host names their certificates are checked against.
    std::string tls_bootstrap_servers(const std::string& name) const;
    int size() const { return static_cast<int>(nodes_.size()); }
    BrokerNode& node(int node_id);  // 1-based, as Kafka's node.id

    // Starts a stopped or killed node on its old data and waits until it answers.
    void restart(int node_id, std::chrono::milliseconds timeout = std::chrono::seconds(120));
    // Waits until every running node answers metadata and lists itself among the brokers.
    void wait_ready(std::chrono::milliseconds timeout = std::chrono::seconds(120));

private:
    std::string base_dir_;
    std::vector<std::unique_ptr<BrokerNode>> nodes_;
};

}  // namespace outbox::test
