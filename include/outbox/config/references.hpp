#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"

namespace outbox::config {

// Replaces, from left to right over the original text (so that no value is expanded again):
// - ${env:NAME} by the environment variable NAME;
// - ${file:PATH:KEY} by the value of KEY in the Java properties file PATH, as Kafka Connect's
//   FileConfigProvider reads it (PATH ends at the first colon; KEY is the rest).
// Any other ${...} stays as written. A missing variable, file or key is a ConfigError naming
// `where`, the setting `key`, the reference and the file, never a value.
std::string expand_references(const std::string& text, const std::string& key, const Location& where);

// The same, each reference's value written as `inserted` returns it (e.g. percent-encoded in a URI).
std::string expand_references(const std::string& text, const std::string& key, const Location& where,
                              const std::function<std::string(std::string_view)>& inserted);

// Whether `text` is one reference and nothing else (blanks around it aside).
bool is_one_reference(std::string_view text);

}  // namespace outbox::config
