#define PCRE2_CODE_UNIT_WIDTH 8
#include "outbox/router/topic_router.hpp"

#include <pcre2.h>

#include "outbox/util/errors.hpp"
#include "outbox/util/java_regex.hpp"

namespace outbox::router {
namespace {

constexpr std::size_t kMaxCachedRoutes = 10'000;

std::string pcre2_message(int code) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof buffer);
    return reinterpret_cast<const char*>(buffer);
}

struct MatchData {
    explicit MatchData(const pcre2_code* code) : raw(pcre2_match_data_create_from_pattern(code, nullptr)) {}
    ~MatchData() { pcre2_match_data_free(raw); }
    MatchData(const MatchData&) = delete;
    MatchData& operator=(const MatchData&) = delete;
    pcre2_match_data* raw;
};

}  // namespace

struct TopicRouter::Compiled {
    pcre2_code* code = nullptr;
    std::uint32_t group_count = 0;
    ~Compiled() { pcre2_code_free(code); }
};

// Walks a Java replacement string, calling `literal` for plain text and `group` for each
// group reference, exactly as Matcher.appendReplacement parses it.
template <typename Literal, typename GroupNumber, typename GroupName>
void parse_replacement(std::string_view replacement, std::uint32_t group_count, Literal literal,
                       GroupNumber group_number, GroupName group_name) {
    for (std::size_t i = 0; i < replacement.size(); ++i) {
        const char c = replacement[i];
        if (c == '\\') {
            if (++i == replacement.size()) throw std::invalid_argument("character to be escaped is missing");
            literal(replacement.substr(i, 1));
        } else if (c == '$') {
            if (++i == replacement.size()) throw std::invalid_argument("illegal group reference: group index is missing");
            if (replacement[i] == '{') {
                const auto close = replacement.find('}', i);
                if (close == std::string_view::npos) throw std::invalid_argument("named capturing group is missing trailing '}'");
                const auto name = replacement.substr(i + 1, close - i - 1);
                if (name.empty()) throw std::invalid_argument("named capturing group has 0 length name");
                group_name(name);
                i = close;
            } else if (replacement[i] >= '0' && replacement[i] <= '9') {
                std::uint32_t ref = replacement[i] - '0';
                if (ref > group_count) throw std::invalid_argument("no group " + std::to_string(ref));
                // Java takes further digits only while the number still names an existing group.
                while (i + 1 < replacement.size() && replacement[i + 1] >= '0' && replacement[i + 1] <= '9') {
                    const std::uint32_t longer = ref * 10 + (replacement[i + 1] - '0');
                    if (longer > group_count) break;
                    ref = longer;
                    ++i;
                }
                group_number(ref);
            } else {
                throw std::invalid_argument("illegal group reference");
            }
        } else {
            const auto next = replacement.find_first_of("\\$", i);
            const auto end = next == std::string_view::npos ? replacement.size() : next;
            literal(replacement.substr(i, end - i));
            i = end - 1;
        }
    }
}

TopicRouter::TopicRouter(const std::string& regex, const std::string& replacement,
                         const config::Location& regex_where, const config::Location& replacement_where)
    : compiled_(std::make_unique<Compiled>()), replacement_(replacement) {
    std::string translated;
    try {
        translated = java_regex_to_pcre2(regex);
    } catch (const JavaRegexError& e) {
        throw ConfigError(regex_where.describe() + ": outbox.route.topic.regex: \"" + regex + "\" as Java reads it: " +
                          e.what());
    }
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                    PCRE2_UTF, &error_code, &error_offset, nullptr);
    if (!compiled_->code)
        throw ConfigError(regex_where.describe() + ": outbox.route.topic.regex: regular expression \"" + regex +
                          "\" is not supported: " + pcre2_message(error_code));
    pcre2_pattern_info(compiled_->code, PCRE2_INFO_CAPTURECOUNT, &compiled_->group_count);
    try {
        parse_replacement(
            replacement_, compiled_->group_count, [](std::string_view) {}, [](std::uint32_t) {},
            [&](std::string_view name) {
                const std::string n(name);
                if (pcre2_substring_number_from_name(compiled_->code, reinterpret_cast<PCRE2_SPTR>(n.c_str())) < 0)
                    throw std::invalid_argument("no group with name {" + n + "}");
            });
    } catch (const std::invalid_argument& e) {
        throw ConfigError(replacement_where.describe() + ": outbox.route.topic.replacement \"" + replacement_ +
                          "\": " + e.what() + " (use \\$ for a literal $)");
    }
}

TopicRouter::~TopicRouter() = default;

std::string TopicRouter::compute(std::string_view value) const {
    MatchData match(compiled_->code);
    const auto subject = reinterpret_cast<PCRE2_SPTR>(value.data());
    if (pcre2_match(compiled_->code, subject, value.size(), 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, match.raw,
                    nullptr) < 0)
        return std::string(value);
    // RegexRouter then calls replaceFirst, which finds the first match afresh: the one at the
    // start, not necessarily to the end (`a|ab` on "ab" replaces "a" and keeps "b").
    const int rc = pcre2_match(compiled_->code, subject, value.size(), 0, PCRE2_ANCHORED, match.raw, nullptr);
    if (rc < 0) return std::string(value);
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.raw);
    std::string topic;
    auto append_group = [&](std::uint32_t n) {
        // A group that did not take part in the match contributes nothing, as in Java.
        if (static_cast<int>(n) < rc && ovector[2 * n] != PCRE2_UNSET)
            topic.append(value.substr(ovector[2 * n], ovector[2 * n + 1] - ovector[2 * n]));
    };
    parse_replacement(
        replacement_, compiled_->group_count, [&](std::string_view text) { topic.append(text); }, append_group,
        [&](std::string_view name) {
            const std::string n(name);
            append_group(pcre2_substring_number_from_name(compiled_->code, reinterpret_cast<PCRE2_SPTR>(n.c_str())));
        });
    topic.append(value.substr(ovector[1]));
    return topic;
}

const TopicRouter::Route& TopicRouter::route_for(std::string_view route_by_value) {
    if (auto hit = cache_.find(route_by_value); hit != cache_.end()) return hit->second;
    if (cache_.size() >= kMaxCachedRoutes) cache_.clear();
    std::string topic = compute(route_by_value);
    const bool legal = is_legal_topic_name(topic);
    return cache_.emplace(std::string(route_by_value), Route{std::move(topic), legal}).first->second;
}

}  // namespace outbox::router
