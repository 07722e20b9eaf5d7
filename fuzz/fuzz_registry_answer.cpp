// A schema registry's answers (outside input): the schema id of a registration, the error
// message of a refusal, and URLs as messages show them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "outbox/registry/schema_registry_client.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    outbox::registry::schema_id_of(text);
    outbox::registry::registry_message(text);
    outbox::registry::redacted_url(text);
    return 0;
}
