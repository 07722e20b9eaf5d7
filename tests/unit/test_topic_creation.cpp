#define BOOST_TEST_MODULE topic_creation
#include <boost/test/unit_test.hpp>

#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/topic_creation_rules.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;

namespace {

config::Config parse(const std::string& top_level) {
    return config::parse_config("postgres:\n  conninfo: host=db\nkafka:\n  bootstrap.servers: k:9092\n" + top_level,
                                "router.yaml");
}

std::string error_of(const std::string& top_level) {
    try {
        parse(top_level);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "<no error>";
}

const std::string kGroups =
    "topic.creation.default.partitions: 3\n"
    "topic.creation.default.replication.factor: -1\n"
    "topic.creation.default.retention.ms: '604800000'\n"
    "topic.creation.groups: compacted, audit\n"
    "topic.creation.compacted.include: 'orders\\..*, customers\\..*'\n"
    "topic.creation.compacted.exclude: 'orders\\.tmp\\..*'\n"
    "topic.creation.compacted.cleanup.policy: compact\n"
    "topic.creation.audit.include: [ 'audit\\..*' ]\n"
    "topic.creation.audit.partitions: 1\n";

}  // namespace

BOOST_AUTO_TEST_CASE(groups_are_read_with_the_defaults_they_inherit) {
    const auto config = parse(kGroups);
    BOOST_TEST(config.topic_creation.enabled);
    BOOST_REQUIRE(config.topic_creation.groups.size() == 3u);
    const auto& compacted = config.topic_creation.groups[0];
    BOOST_TEST(compacted.name == "compacted");
    BOOST_TEST(compacted.partitions == 3);
    BOOST_TEST(compacted.replication_factor == -1);
    BOOST_TEST(compacted.include.size() == 2u);
    BOOST_REQUIRE(compacted.configs.size() == 2u);
    BOOST_TEST(compacted.configs[0].first == "retention.ms");
    BOOST_TEST(compacted.configs[1].second == "compact");
    BOOST_TEST(config.topic_creation.groups[1].partitions == 1);
    BOOST_TEST(config.topic_creation.groups[2].name == "default");
}

BOOST_AUTO_TEST_CASE(a_topic_goes_to_the_first_group_that_includes_and_does_not_exclude_it) {
    const auto config = parse(kGroups);
    const kafka::TopicCreationRules rules(config.topic_creation);
    BOOST_TEST(rules.group_for("orders.created")->name == "compacted");
    BOOST_TEST(rules.group_for("customers.x")->name == "compacted");
    BOOST_TEST(rules.group_for("orders.tmp.1")->name == "default");  // excluded from compacted
    BOOST_TEST(rules.group_for("audit.log")->name == "audit");
    BOOST_TEST(rules.group_for("xorders.created")->name == "default");  // the whole name must match
    BOOST_TEST(rules.group_for("payments")->name == "default");
}

BOOST_AUTO_TEST_CASE(topic_creation_is_off_without_both_default_settings_or_when_disabled) {
    BOOST_TEST(!parse("").topic_creation.enabled);
    BOOST_TEST(kafka::TopicCreationRules(parse("").topic_creation).group_for("a") == nullptr);
    BOOST_TEST(!parse("topic.creation.enable: false\ntopic.creation.default.partitions: 1\n"
                      "topic.creation.default.replication.factor: 1\n")
                    .topic_creation.enabled);
}

BOOST_AUTO_TEST_CASE(mistakes_in_topic_creation_name_file_line_and_key) {
    BOOST_TEST(error_of("topic.creation.default.partitions: 3\n") ==
               "router.yaml:5: topic.creation.default.replication.factor is needed too: Kafka Connect creates topics "
               "only with both");
    BOOST_TEST(error_of("topic.creation.default.partitions: 0\ntopic.creation.default.replication.factor: 1\n") ==
               "router.yaml:5: topic.creation.default.partitions: expected -1 (the broker's default) or a positive "
               "integer, got 0");
    BOOST_TEST(error_of("topic.creation.default.partitions: 1\ntopic.creation.default.replication.factor: 1\n"
                        "topic.creation.orders.include: 'a'\n") ==
               "router.yaml:7: topic.creation.orders.include: group \"orders\" is not listed in topic.creation.groups");
    BOOST_TEST(error_of("topic.creation.default.partitions: 1\ntopic.creation.default.replication.factor: 1\n"
                        "topic.creation.groups: orders\ntopic.creation.orders.partitions: 2\n") ==
               "router.yaml:8: topic.creation.orders.include is needed: a group takes only the topics it includes");
    BOOST_TEST(error_of("topic.creation.default.partitions: 1\ntopic.creation.default.replication.factor: 1\n"
                        "topic.creation.groups: orders\ntopic.creation.orders.include: 'a('\n")
                   == "router.yaml:8: topic.creation.orders.include: \"a(\" as a Java regular expression: Unclosed group (near index 2)");
    // A Java construct the router does not translate is refused by name, never matched otherwise.
    BOOST_TEST(error_of("topic.creation.default.partitions: 1\ntopic.creation.default.replication.factor: 1\n"
                        "topic.creation.groups: orders\ntopic.creation.orders.include: 'a\\b'\n") ==
               "router.yaml:8: topic.creation.orders.include: \"a\\b\" as a Java regular expression: the word boundary "
               "\\b is not supported (near index 2)");
    BOOST_TEST(error_of("topic.creation.partitions: 1\n") ==
               "router.yaml:5: topic.creation.partitions: expected topic.creation.<group>.<setting>");
}

// Keys after the topic.creation.* ones keep their own values (erasing entries once rewrote the
// YAML nodes the topic.creation copies shared: replication.factor read errors.tolerance's "all").
BOOST_AUTO_TEST_CASE(keys_around_topic_creation_keep_their_values) {
    const auto config = parse("shutdown.timeout.ms: 7000\n"
                              "topic.creation.default.partitions: 3\n"
                              "topic.creation.default.replication.factor: 1\n"
                              "errors.tolerance: all\n"
                              "max.inflight.messages: 5\n");
    BOOST_REQUIRE(config.topic_creation.groups.size() == 1u);
    BOOST_TEST(config.topic_creation.groups[0].partitions == 3);
    BOOST_TEST(config.topic_creation.groups[0].replication_factor == 1);
    BOOST_TEST((config.errors_tolerance == config::ErrorTolerance::all));
    BOOST_TEST(config.shutdown_timeout_ms == 7000);
    BOOST_TEST(config.max_inflight_messages == 5);
}
