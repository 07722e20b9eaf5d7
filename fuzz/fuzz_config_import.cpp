// outbox-router import: any connector file gives a configuration or a ConfigError, and the
// configuration it writes is always YAML the router can read (the values are quoted right).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/migration/config_import.hpp"
#include "outbox/util/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    outbox::migration::ImportedConfig imported;
    try {
        imported = outbox::migration::import_debezium(outbox::migration::read_connector_settings(text, "fuzz"), "fuzz");
    } catch (const outbox::ConfigError&) {
        return 0;
    }
    try {
        outbox::config::parse_config(imported.yaml, "imported.yaml");
    } catch (const outbox::YamlSyntaxError&) {
        std::abort();  // YAML that does not parse is ours to fix
    } catch (const outbox::DefiniteError&) {
        // a value the router refuses is the user's to fix (and the message quotes it)
    }
    return 0;
}
