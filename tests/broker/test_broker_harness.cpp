#define BOOST_TEST_MODULE broker_harness
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "harness.hpp"
#include "topic_admin.hpp"

// The real-broker harness every other broker test stands on: it must fail loudly, not hang, and
// its stop, kill, pause and restart must do what the tests take them to do.

using namespace outbox::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(a_broker_that_cannot_start_throws_with_its_log) {
    BrokerClusterOptions options;
    options.properties = {{"num.network.threads", "0"}};  // Kafka's own validation refuses it
    std::string error;
    try {
        BrokerCluster broken(options);
    } catch (const std::runtime_error& e) {
        error = e.what();
    }
    BOOST_TEST_MESSAGE("a broker that cannot start: " << error.substr(0, 400));
    BOOST_TEST(contains(error, "Kafka node 1"));
    BOOST_TEST(contains(error, "num.network.threads"));  // the cause, from the tail of its log
}

BOOST_AUTO_TEST_CASE(pause_kill_and_restart_keep_the_data) {
    auto& kafka = real_kafka();
    create_topic(kafka.bootstrap_servers(), "harness.data", 1, 1);
    auto& node = kafka.node(1);

    node.pause();
    BOOST_TEST(node.running());
    BOOST_TEST(list_topics(kafka.bootstrap_servers()).empty());  // metadata goes unanswered
    node.resume();
    BOOST_TEST(wait_until([&] { return !list_topics(kafka.bootstrap_servers()).empty(); }, 30s));

    node.kill_hard();
    BOOST_TEST(!node.running());
    kafka.restart(1);
    const auto topics = list_topics(kafka.bootstrap_servers());
    BOOST_TEST((std::find(topics.begin(), topics.end(), "harness.data") != topics.end()));

    node.stop();
    BOOST_TEST(!node.running());
    kafka.restart(1);
    BOOST_TEST(partition_leader(kafka.bootstrap_servers(), "harness.data", 0) == 1);
}
