#define BOOST_TEST_MODULE topic_creation_acl
#include <boost/test/unit_test.hpp>

#include <librdkafka/rdkafka.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "topic_admin.hpp"

// topic.creation.* with a principal that may write a topic but not create topics, on a real
// broker with StandardAuthorizer: Kafka checks the right to create before existence, so a
// CreateTopics for a topic that exists is answered TOPIC_AUTHORIZATION_FAILED. The router looks
// the topic up first, as Kafka Connect does, and takes an authorization refusal as "assume it
// exists".

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

struct KafkaWithAcls {
    KafkaWithAcls() {
        BrokerClusterOptions options;
        options.sasl = true;
        // The PLAINTEXT listeners (the test's own clients, the controller) are anonymous and super.
        options.properties = {{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                              {"super.users", "User:ANONYMOUS"},
                              {"allow.everyone.if.no.acl.found", "false"}};
        configure_real_kafka(options);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(KafkaWithAcls);

// ALLOW `operation` on the topic for the SASL user, through the (super) PLAINTEXT listener.
void allow(const std::string& topic, rd_kafka_AclOperation_t operation) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", kafka_servers().c_str(), error, sizeof error);
    rd_kafka_t* admin = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
    if (!admin) throw std::runtime_error(error);
    rd_kafka_AclBinding_t* binding = rd_kafka_AclBinding_new(
        RD_KAFKA_RESOURCE_TOPIC, topic.c_str(), RD_KAFKA_RESOURCE_PATTERN_LITERAL,
        ("User:" + std::string(kSaslUser)).c_str(), "*", operation, RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, error, sizeof error);
    rd_kafka_queue_t* queue = rd_kafka_queue_new(admin);
    rd_kafka_CreateAcls(admin, &binding, 1, nullptr, queue);
    rd_kafka_event_t* event = rd_kafka_queue_poll(queue, 30000);
    std::string failure = !event ? "no answer to CreateAcls" : rd_kafka_event_error(event) ? rd_kafka_event_error_string(event) : "";
    if (event) {
        size_t count = 0;
        const rd_kafka_acl_result_t** results = rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(event), &count);
        for (size_t i = 0; i < count && failure.empty(); ++i)
            if (const rd_kafka_error_t* e = rd_kafka_acl_result_error(results[i])) failure = rd_kafka_error_string(e);
        rd_kafka_event_destroy(event);
    }
    rd_kafka_queue_destroy(queue);
    rd_kafka_AclBinding_destroy(binding);
    rd_kafka_destroy(admin);
    if (!failure.empty()) throw std::runtime_error("CreateAcls: " + failure);
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_existing_topic_the_router_may_write_but_not_create_is_written) {
    const auto db = create_outbox_database("aclexists");
    const std::string topic = "acl.events";
    create_topic(kafka_servers(), topic, 2, 1);
    allow(topic, RD_KAFKA_ACL_OPERATION_WRITE);
    allow(topic, RD_KAFKA_ACL_OPERATION_DESCRIBE);
    ::setenv("OUTBOX_TEST_KAFKA_PASSWORD", kSaslPassword, 1);
    RouterProcess router(work_dir(), sasl_router_config(db, topic, "OUTBOX_TEST_KAFKA_PASSWORD", "PLAIN") +
                                         "topic.creation.default.partitions: 3\n"
                                         "topic.creation.default.replication.factor: 1\n");
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 50, 5));
    const auto records = read_topic(kafka_servers(), topic, 50, 60s);
    const auto tally = tally_deliveries(records, 50);
    BOOST_TEST(records.size() == 50u);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(router.running());
    BOOST_TEST(!contains(router.output(), "Authorization failed"));
    BOOST_TEST(router.stop(SIGTERM) == 0);
    BOOST_TEST(confirmed_flush_lsn(db, db) > 0u);
}
