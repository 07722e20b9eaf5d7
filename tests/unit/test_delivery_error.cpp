#define BOOST_TEST_MODULE delivery_error
#include <boost/test/unit_test.hpp>

#include "outbox/kafka/delivery_error.hpp"

using outbox::kafka::classify_delivery_error;
using outbox::kafka::DeliveryErrorClass;

BOOST_AUTO_TEST_CASE(answers_about_one_record_go_to_errors_tolerance) {
    for (const auto error : {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP,
                             RD_KAFKA_RESP_ERR_INVALID_RECORD, RD_KAFKA_RESP_ERR_POLICY_VIOLATION,
                             RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION,
                             RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED})
        BOOST_TEST((classify_delivery_error(error) == DeliveryErrorClass::record), rd_kafka_err2name(error));
}

BOOST_AUTO_TEST_CASE(answers_about_the_producer_or_the_cluster_state_replay_through_a_new_producer) {
    for (const auto error : {RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                             RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER,
                             RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH, RD_KAFKA_RESP_ERR__TRANSPORT,
                             RD_KAFKA_RESP_ERR__PURGE_INFLIGHT})
        BOOST_TEST((classify_delivery_error(error) == DeliveryErrorClass::producer), rd_kafka_err2name(error));
}

// What has no rule stops the router: replaying a record the broker keeps refusing loops for
// ever, and skipping one could lose an event.
BOOST_AUTO_TEST_CASE(answers_without_a_rule_and_cluster_permissions_are_definite) {
    for (const auto error : {RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR__AUTHENTICATION,
                             RD_KAFKA_RESP_ERR_UNKNOWN, RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION,
                             RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR})
        BOOST_TEST((classify_delivery_error(error) == DeliveryErrorClass::definite), rd_kafka_err2name(error));
}
