// A schema registry's answers (outside input): the schema id of a registration, the error
// message of a refusal, URLs as messages show them, and a registered schema's canonical form
// (use.latest.version).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "outbox/avro/avro_canonical.hpp"
#include "outbox/registry/schema_registry_client.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    outbox::registry::schema_id_of(text);
    outbox::registry::registry_message(text);
    outbox::registry::redacted_url(text);
    try {
        outbox::avro::parsing_canonical_form(text);
    } catch (const outbox::avro::AvroSchemaTextError&) {
    }
    return 0;
}
