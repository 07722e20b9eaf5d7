#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "java_process.hpp"

namespace outbox::test {

// A TLS listener of a broker: SSL, or SASL_SSL with PLAIN and SCRAM-SHA-512 for the node's
// sasl_users. Each listener has a certificate of its own, so one broker can present a good, an
// expired and a wrongly named certificate side by side.
struct TlsListenerSpec {
    std::string name;          // Kafka's listener name, upper case letters (e.g. "MTLS")
    bool sasl = false;         // SASL_SSL instead of SSL
    bool client_auth = false;  // ssl.client.auth=required: clients must present a certificate
    std::string certificate;   // PEM file: the broker's certificate
    std::string key;           // PEM file: its private key, unencrypted PKCS#8
    std::string client_ca;     // PEM file: the CA client certificates must chain to (client_auth)
    int port = 0;              // chosen by BrokerCluster
};

// Where one Apache Kafka node listens and keeps its data.
struct BrokerNodeSpec {
    int node_id = 1;
    int port = 0;             // PLAINTEXT listener, advertised to clients
    int controller_port = 0;  // KRaft controller listener
    int sasl_port = 0;        // SASL_PLAINTEXT listener (PLAIN and SCRAM-SHA-512); 0 for none
    std::string dir;          // data, properties and logs
    std::string quorum_voters;
    std::string cluster_id;
    std::map<std::string, std::string> properties;  // added to or replacing the defaults
    std::map<std::string, std::string> sasl_users;  // name → password, for PLAIN and SCRAM-SHA-512
    std::vector<TlsListenerSpec> tls_listeners;     // advertised as tls_host:port
    std::string tls_host = "localhost";             // the name the TLS listeners' certificates carry
    std::string runtime_libs;  // the broker's jars; empty for kafka_runtime_libs()
};

// One real Apache Kafka process, broker and KRaft controller combined (`kafka.Kafka`), run from
// the jars `make` copied into the build tree. Construction writes server.properties and formats
// the storage; start() launches the JVM and returns at once (BrokerCluster waits for metadata).
class BrokerNode {
public:
    explicit BrokerNode(BrokerNodeSpec spec);
    BrokerNode(const BrokerNode&) = delete;
    BrokerNode& operator=(const BrokerNode&) = delete;

    void start();
    // SIGTERM and a wait for the controlled shutdown; SIGKILL after `timeout`.
    void stop(std::chrono::milliseconds timeout = std::chrono::seconds(60)) { process_.stop(timeout); }
    void kill_hard() { process_.kill_hard(); }
    void pause() { process_.pause(); }    // SIGSTOP: the process holds its sockets and answers nothing
    void resume() { process_.resume(); }  // SIGCONT
    bool running() { return process_.running(); }

    int id() const { return spec_.node_id; }
    int port() const { return spec_.port; }
    std::string address() const { return "127.0.0.1:" + std::to_string(spec_.port); }
    std::string sasl_address() const { return "127.0.0.1:" + std::to_string(spec_.sasl_port); }
    // host:port of the TLS listener `name`, under the host name its certificate is checked against.
    std::string tls_address(const std::string& name) const;
    // The last `lines` lines of the broker's log and of the JVM's own output.
    std::string log_tail(int lines = 40) const;

private:
    void write_properties() const;
    void format_storage() const;

    BrokerNodeSpec spec_;
    JavaProcess process_;
};

// The folders of the brokers' runtime jars (the build tree's copies): the pinned Kafka 4.x every
// broker test runs, and the last 3.x for what librdkafka 2.0.2 can do only with a 3.x broker.
std::string kafka_runtime_libs();
std::string kafka3_runtime_libs();

}  // namespace outbox::test
