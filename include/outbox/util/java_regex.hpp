#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

struct pcre2_real_code_8;  // PCRE2's compiled pattern (pcre2.h)

namespace outbox {

// A pattern java.util.regex rejects, or a Java construct the router does not translate (the
// message names it): either way the setting is refused at load, never matched differently.
class JavaRegexError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// A Java regular expression (java.util.regex.Pattern, as Debezium and Kafka Connect compile
// their settings' patterns) rewritten in PCRE2's syntax with the same meaning: compile it with
// PCRE2_UTF and no other option. Java's meanings are spelled out instead of left to PCRE2's
// defaults: `.` excludes Java's line terminators, `$` and `\Z` are Java's, \d \s \w and the
// POSIX classes (\p{Upper}, \p{Alnum}, ...) are ASCII, (?i) folds ASCII letters only, character
// classes nest and intersect (`[a-z&&[^q]]`, `[^a[b]]` negating the whole union) and \Q...\E
// quotes. Capturing groups keep their numbers and names. Not translated, so refused: back
// references, word boundaries, \G, \X, Unicode scripts, blocks and binary properties, java*
// properties, and the flags d, m, u, x, U.
std::string java_regex_to_pcre2(std::string_view pattern);

// A compiled Java pattern for whole-name tests (Kafka Connect's topic.creation include and
// exclude lists). Throws JavaRegexError, also for what PCRE2 cannot run (a lookbehind of
// varying length, which Java allows).
class JavaPattern {
public:
    explicit JavaPattern(std::string_view pattern);
    ~JavaPattern();
    JavaPattern(JavaPattern&& other) noexcept;
    JavaPattern& operator=(JavaPattern&&) = delete;
    JavaPattern(const JavaPattern&) = delete;
    JavaPattern& operator=(const JavaPattern&) = delete;

    // Matcher.matches(): whether the pattern matches all of `text`.
    bool matches(std::string_view text) const;

private:
    ::pcre2_real_code_8* code_ = nullptr;
};

}  // namespace outbox
