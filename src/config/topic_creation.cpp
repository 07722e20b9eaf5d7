#include "outbox/config/topic_creation.hpp"

#include <algorithm>
#include <map>

#include "outbox/util/java_regex.hpp"

namespace outbox::config {
namespace {

constexpr std::string_view kPrefix = "topic.creation.";

int partitions_or_factor(const Entry& e) {
    const int value = integer_at_least(e, -1);
    if (value == 0) fail(e.location, e.key + ": expected -1 (the broker's default) or a positive integer, got 0");
    return value;
}

std::vector<std::string> regex_list(const Entry& e) {
    std::vector<std::string> patterns;
    const std::string text = list_text(e);
    for (const auto item : split_list(text)) {
        if (item.empty()) continue;
        try {
            JavaPattern check{item};
        } catch (const JavaRegexError& error) {
            fail(e.location, e.key + ": " + quoted(item) + " as a Java regular expression: " + error.what());
        }
        patterns.emplace_back(item);
    }
    return patterns;
}

}  // namespace

TopicCreation read_topic_creation(const std::vector<Entry>& entries, const std::string& file) {
    TopicCreation creation;
    bool enable = true;
    std::vector<std::string> listed;
    std::map<std::string, std::vector<const Entry*>> by_group;
    std::vector<std::string> group_order;
    for (const Entry& e : entries) {
        const std::string rest = e.name.substr(kPrefix.size());
        if (rest == "enable") {
            enable = boolean_option(e);
        } else if (rest == "groups") {
            const std::string text = list_text(e);
            for (const auto item : split_list(text))
                if (!item.empty()) listed.emplace_back(item);
        } else {
            const auto dot = rest.find('.');
            if (dot == std::string::npos || dot == 0 || dot + 1 == rest.size())
                fail(e.location, e.key + ": expected topic.creation.<group>.<setting>");
            const std::string group = rest.substr(0, dot);
            if (!by_group.count(group)) group_order.push_back(group);
            by_group[group].push_back(&e);
        }
    }
    for (const auto& group : group_order)
        if (group != "default" && std::find(listed.begin(), listed.end(), group) == listed.end())
            fail(by_group[group].front()->location, by_group[group].front()->key + ": group \"" + group +
                                                        "\" is not listed in topic.creation.groups");

    const auto read_group = [&](const std::string& name, const TopicCreationGroup* defaults) {
        TopicCreationGroup group;
        group.name = name;
        group.location = Location{file, 0};
        if (defaults) {
            group.partitions = defaults->partitions;
            group.replication_factor = defaults->replication_factor;
            group.configs = defaults->configs;
        }
        bool has_partitions = false, has_factor = false;
        for (const Entry* e : by_group[name]) {
            const std::string setting = e->name.substr(kPrefix.size() + name.size() + 1);
            if (group.location.line == 0) group.location = e->location;
            if (setting == "include" || setting == "exclude") {
                if (name == "default") fail(e->location, e->key + ": the default group takes every other topic");
                (setting == "include" ? group.include : group.exclude) = regex_list(*e);
            } else if (setting == "partitions") {
                group.partitions = partitions_or_factor(*e);
                has_partitions = true;
            } else if (setting == "replication.factor") {
                group.replication_factor = partitions_or_factor(*e);
                has_factor = true;
            } else {
                const std::string value = non_empty_text(*e);
                const auto same = std::find_if(group.configs.begin(), group.configs.end(),
                                               [&](const auto& c) { return c.first == setting; });
                if (same != group.configs.end()) same->second = value;
                else group.configs.emplace_back(setting, value);
            }
        }
        return std::make_tuple(group, has_partitions, has_factor);
    };

    auto [default_group, has_partitions, has_factor] = read_group("default", nullptr);
    if (by_group.count("default") && has_partitions != has_factor)
        fail(default_group.location, std::string("topic.creation.default.") +
                                         (has_partitions ? "replication.factor" : "partitions") +
                                         " is needed too: Kafka Connect creates topics only with both");
    creation.enabled = enable && has_partitions && has_factor;
    if (!creation.enabled) return creation;
    for (const auto& name : listed) {
        if (name == "default") continue;
        auto group = std::get<0>(read_group(name, &default_group));
        if (group.include.empty())
            fail(group.location.line ? group.location : default_group.location,
                 "topic.creation." + name + ".include is needed: a group takes only the topics it includes");
        creation.groups.push_back(std::move(group));
    }
    creation.groups.push_back(std::move(default_group));
    return creation;
}

}  // namespace outbox::config
