#include "outbox/config/references.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <iterator>
#include <string_view>

#include "outbox/config/yaml_entries.hpp"
#include "outbox/util/java_properties.hpp"

namespace outbox::config {
namespace {

constexpr std::string_view kEnv = "${env:";
constexpr std::string_view kFile = "${file:";

std::string environment_value(const std::string& name, const std::string& key, const Location& where) {
    if (name.empty()) fail(where, key + ": ${env:} names no variable");
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) fail(where, "environment variable " + name + " is not set (referenced by " + key + ")");
    return value;
}

std::string file_value(const std::string& reference, const std::string& key, const Location& where) {
    const std::string written = "${file:" + reference + "}";
    const auto colon = reference.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == reference.size())
        fail(where, key + ": " + written + " names no file and key; write ${file:/path/to/file.properties:key}");
    const std::string path = reference.substr(0, colon);
    const std::string name = reference.substr(colon + 1);
    // A directory, a device or a pipe is no properties file (and /dev/zero would never end).
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode))
        fail(where, key + ": " + written + ": " + path + " is not a regular file");
    std::ifstream file(path, std::ios::binary);
    if (!file) fail(where, key + ": " + written + ": cannot read " + path + ": " + std::strerror(errno));
    const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    if (file.bad()) fail(where, key + ": " + written + ": cannot read " + path + ": " + std::strerror(errno));
    // java.util.Properties keeps the last of a repeated key.
    std::optional<std::string> value;
    for (auto& property : util::parse_java_properties(text))
        if (property.key == name) value = std::move(property.value);
    if (!value) fail(where, key + ": " + written + ": " + path + " has no key \"" + name + "\"");
    return *value;
}

}  // namespace

std::string expand_references(const std::string& text, const std::string& key, const Location& where) {
    return expand_references(text, key, where, [](std::string_view value) { return std::string(value); });
}

bool is_one_reference(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string_view::npos) return false;
    text = text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
    return (text.starts_with(kEnv) || text.starts_with(kFile)) && text.find('}') == text.size() - 1;
}

std::string expand_references(const std::string& text, const std::string& key, const Location& where,
                              const std::function<std::string(std::string_view)>& inserted) {
    std::string out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t env = text.find(kEnv, pos);
        const std::size_t file = text.find(kFile, pos);
        const std::size_t start = std::min(env, file);
        if (start == std::string::npos) return out.append(text, pos);
        const bool is_env = start == env;
        const std::size_t body = start + (is_env ? kEnv.size() : kFile.size());
        const std::size_t end = text.find('}', body);
        if (end == std::string::npos)
            fail(where, key + ": unterminated " + (is_env ? "${env:...}" : "${file:...}") + " reference");
        const std::string reference = text.substr(body, end - body);
        out.append(text, pos, start - pos)
            .append(inserted(is_env ? environment_value(reference, key, where) : file_value(reference, key, where)));
        pos = end + 1;
    }
}

}  // namespace outbox::config
