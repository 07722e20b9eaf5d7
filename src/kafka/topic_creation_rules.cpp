#include "outbox/kafka/topic_creation_rules.hpp"

#include <algorithm>
#include <string>

namespace outbox::kafka {
namespace {

std::vector<JavaPattern> compiled(const std::vector<std::string>& patterns) {
    std::vector<JavaPattern> regexes;
    for (const auto& pattern : patterns) regexes.emplace_back(pattern);
    return regexes;
}

bool any_matches(const std::vector<JavaPattern>& regexes, std::string_view topic) {
    return std::any_of(regexes.begin(), regexes.end(), [&](const JavaPattern& r) { return r.matches(topic); });
}

}  // namespace

TopicCreationRules::TopicCreationRules(const config::TopicCreation& creation) : enabled_(creation.enabled) {
    for (const auto& group : creation.groups) groups_.push_back({&group, compiled(group.include), compiled(group.exclude)});
}

const config::TopicCreationGroup* TopicCreationRules::group_for(std::string_view topic) const {
    if (!enabled_) return nullptr;
    for (const auto& g : groups_) {
        if (g.group->name == "default") return g.group;
        if (any_matches(g.include, topic) && !any_matches(g.exclude, topic)) return g.group;
    }
    return nullptr;
}

}  // namespace outbox::kafka
