#pragma once

#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/util/java_regex.hpp"

namespace outbox::kafka {

// Which topic.creation group makes a topic, as Kafka Connect picks it: the first named group
// (in topic.creation.groups order) whose include matches the whole name and whose exclude does
// not, else the default group. Pure; the Java regexes are compiled once.
class TopicCreationRules {
public:
    explicit TopicCreationRules(const config::TopicCreation& creation);

    bool enabled() const { return enabled_; }
    // The group for `topic`; nullptr when topic creation is off.
    const config::TopicCreationGroup* group_for(std::string_view topic) const;

private:
    struct Compiled {
        const config::TopicCreationGroup* group;
        std::vector<JavaPattern> include;
        std::vector<JavaPattern> exclude;
    };
    bool enabled_;
    std::vector<Compiled> groups_;
};

}  // namespace outbox::kafka
