#include "broker_cluster.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "outbox/kafka/handles.hpp"
#include "pg_server.hpp"

namespace outbox::test {
namespace {

// Whether the node at `address` answers a metadata request listing broker `node_id`.
bool answers_metadata(const std::string& address, int node_id) {
    kafka::ConfPtr conf(rd_kafka_conf_new());
    char error[512];
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"bootstrap.servers", address},
                                      {"log_level", "0"},
                                      {"socket.timeout.ms", "2000"}})
        rd_kafka_conf_set(conf.get(), name, value.c_str(), error, sizeof error);
    kafka::HandlePtr client(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error, sizeof error));
    if (!client) throw std::runtime_error(error);
    conf.release();
    const rd_kafka_metadata_t* raw = nullptr;
    if (rd_kafka_metadata(client.get(), 0, nullptr, &raw, 2000) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
    kafka::MetadataPtr metadata(raw);
    for (int i = 0; i < metadata->broker_cnt; ++i)
        if (metadata->brokers[i].id == node_id) return true;
    return false;
}

// Creates the transaction state log and waits until its coordinator serves producer ids.
void load_transaction_coordinator(const std::string& bootstrap_servers) {
    kafka::ConfPtr conf(rd_kafka_conf_new());
    char error[512];
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"bootstrap.servers", bootstrap_servers},
                                      {"transactional.id", "outbox-test-broker-warm-up"},
                                      {"log_level", "0"}})
        if (rd_kafka_conf_set(conf.get(), name, value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK)
            throw std::runtime_error(error);
    kafka::HandlePtr producer(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error, sizeof error));
    if (!producer) throw std::runtime_error(error);
    conf.release();
    if (rd_kafka_error_t* failed = rd_kafka_init_transactions(producer.get(), 120000)) {
        const std::string reason = rd_kafka_error_string(failed);
        rd_kafka_error_destroy(failed);
        throw std::runtime_error("Kafka's transaction coordinator did not load: " + reason);
    }
}

std::string join_addresses(const std::vector<std::unique_ptr<BrokerNode>>& nodes, bool sasl) {
    std::string text;
    for (const auto& node : nodes) text += (text.empty() ? "" : ",") + (sasl ? node->sasl_address() : node->address());
    return text;
}

void wait_until_answering(BrokerNode& node, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        if (!node.running())
            throw std::runtime_error("Kafka node " + std::to_string(node.id()) + " exited while starting:\n" +
                                     node.log_tail());
        if (answers_metadata(node.address(), node.id())) return;
        if (std::chrono::steady_clock::now() >= deadline)
            throw std::runtime_error("Kafka node " + std::to_string(node.id()) + " did not answer metadata on " +
                                     node.address() + " in time:\n" + node.log_tail());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

}  // namespace

BrokerCluster::BrokerCluster(BrokerClusterOptions options) : base_dir_(make_temp_dir("outbox-kafka-")) {
    if (options.nodes < 1) throw std::invalid_argument("a Kafka cluster needs at least one node");
    std::vector<BrokerNodeSpec> specs(options.nodes);
    std::string voters;
    for (int i = 0; i < options.nodes; ++i) {
        auto& spec = specs[i];
        spec.node_id = i + 1;
        spec.port = free_loopback_port();
        spec.controller_port = free_loopback_port();
        if (options.sasl) spec.sasl_port = free_loopback_port();
        const auto own = options.node_tls_listeners.find(spec.node_id);
        spec.tls_listeners = own != options.node_tls_listeners.end() ? own->second : options.tls_listeners;
        for (auto& tls : spec.tls_listeners) tls.port = free_loopback_port();
        spec.dir = base_dir_ + "/node-" + std::to_string(spec.node_id);
        voters += (voters.empty() ? "" : ",") + std::to_string(spec.node_id) + "@127.0.0.1:" +
                  std::to_string(spec.controller_port);
    }
    const std::string replication = std::to_string(options.nodes == 1 ? 1 : 3);
    const std::string min_isr = options.nodes == 1 ? "1" : "2";
    for (auto& spec : specs) {
        spec.quorum_voters = voters;
        spec.cluster_id = "b3V0Ym94LXJvdXRlci10ZQ";  // a UUID in Kafka's base64 form
        spec.properties = {
            {"default.replication.factor", replication},
            {"min.insync.replicas", min_isr},
            {"offsets.topic.replication.factor", replication},
            {"transaction.state.log.replication.factor", replication},
            {"transaction.state.log.min.isr", min_isr},
            {"share.coordinator.state.topic.replication.factor", replication},
            {"share.coordinator.state.topic.min.isr", min_isr},
        };
        for (const auto& [name, value] : options.properties) spec.properties[name] = value;
        const bool sasl_over_tls = std::any_of(options.tls_listeners.begin(), options.tls_listeners.end(),
                                               [](const TlsListenerSpec& tls) { return tls.sasl; });
        if (options.sasl || sasl_over_tls) spec.sasl_users = {{kSaslUser, kSaslPassword}};
        spec.runtime_libs = options.runtime_libs;
        nodes_.push_back(std::make_unique<BrokerNode>(std::move(spec)));
    }
    for (auto& node : nodes_) node->start();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    for (auto& node : nodes_) wait_until_answering(*node, deadline);
    load_transaction_coordinator(bootstrap_servers());
}

BrokerCluster::~BrokerCluster() {
    nodes_.clear();
    std::error_code ignored;
    std::filesystem::remove_all(base_dir_, ignored);
}

std::string BrokerCluster::bootstrap_servers() const { return join_addresses(nodes_, false); }
std::string BrokerCluster::sasl_bootstrap_servers() const { return join_addresses(nodes_, true); }

std::string BrokerCluster::tls_bootstrap_servers(const std::string& name) const {
    std::string text;
    for (const auto& node : nodes_) text += (text.empty() ? "" : ",") + node->tls_address(name);
    return text;
}

BrokerNode& BrokerCluster::node(int node_id) {
    if (node_id < 1 || node_id > size()) throw std::out_of_range("no Kafka node " + std::to_string(node_id));
    return *nodes_[node_id - 1];
}

void BrokerCluster::restart(int node_id, std::chrono::milliseconds timeout) {
    node(node_id).start();
    wait_until_answering(node(node_id), std::chrono::steady_clock::now() + timeout);
}

void BrokerCluster::wait_ready(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (auto& node : nodes_)
        if (node->running()) wait_until_answering(*node, deadline);
}

}  // namespace outbox::test
