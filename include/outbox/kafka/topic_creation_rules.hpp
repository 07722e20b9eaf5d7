#pragma once

#include <regex>
#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"

namespace outbox::kafka {

// Which topic.creation group makes a topic, as Kafka Connect picks it: the first named group
// (in topic.creation.groups order) whose include matches the whole name and whose exclude does
// not, else the default group. Pure; the regexes are compiled once.
class TopicCreationRules {
public:
    explicit TopicCreationRules(const config::TopicCreation& creation);

    bool enabled() const { return enabled_; }
    // The group for `topic`; nullptr when topic creation is off.
    const config::TopicCreationGroup* group_for(std::string_view topic) const;

private:
    struct Compiled {
        const config::TopicCreationGroup* group;
        std::vector<std::regex> include;
        std::vector<std::regex> exclude;
    };
    bool enabled_;
    std::vector<Compiled> groups_;
};

}  // namespace outbox::kafka
