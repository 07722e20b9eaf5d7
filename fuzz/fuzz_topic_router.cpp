// route.topic.regex and route.topic.replacement from the configuration, then route-by values
// from rows: the input's first line is the regex, the second the replacement, the rest values.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "outbox/router/topic_router.hpp"
#include "outbox/util/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto line = [&input] {
        const auto end = input.find('\n');
        const std::string_view taken = input.substr(0, end);
        input = end == std::string_view::npos ? std::string_view{} : input.substr(end + 1);
        return std::string(taken);
    };
    const std::string regex = line();
    const std::string replacement = line();
    try {
        outbox::router::TopicRouter router(regex, replacement, {"fuzz.yaml", 1}, {"fuzz.yaml", 2});
        while (!input.empty()) router.route_for(line());
    } catch (const outbox::DefiniteError&) {
    }
    return 0;
}
