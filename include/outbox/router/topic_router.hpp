#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "outbox/config/config.hpp"
#include "outbox/util/topic_name.hpp"

namespace outbox::router {

// Kafka's RegexRouter as Debezium's EventRouter applies it: if `route.topic.regex` matches the
// whole route-by value, the topic is `route.topic.replacement` with `$n`, `${name}` and `\x`
// expanded (java.util.regex.Matcher.replaceFirst semantics); otherwise the topic is the value
// itself. The regex is read as Java reads it (java_regex_to_pcre2) and run by PCRE2.
// Results are cached per distinct value: an outbox has few aggregate types and many rows.
class TopicRouter {
public:
    // Throws ConfigError (with the option's location) for an invalid regex or a replacement
    // that refers to a group the regex does not have.
    TopicRouter(const std::string& regex, const std::string& replacement, const config::Location& regex_where,
                const config::Location& replacement_where);
    ~TopicRouter();
    TopicRouter(const TopicRouter&) = delete;
    TopicRouter& operator=(const TopicRouter&) = delete;

    // A route-by value's topic, and whether it is a legal topic name (both computed once per value).
    struct Route {
        std::string topic;
        bool legal = false;
    };

    // The route for a route-by value. The reference stays valid until the next call.
    const Route& route_for(std::string_view route_by_value);

private:
    struct Compiled;
    std::string compute(std::string_view value) const;

    struct TransparentHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unique_ptr<Compiled> compiled_;
    std::string replacement_;
    std::unordered_map<std::string, Route, TransparentHash, std::equal_to<>> cache_;
};

}  // namespace outbox::router
