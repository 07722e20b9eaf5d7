// The YAML configuration: any text gives a Config or a ConfigError naming file and line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/util/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        outbox::config::parse_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    } catch (const outbox::DefiniteError&) {
    }
    return 0;
}
