// Outside JSON: a payload expanded by table.expand.json.payload (and written as Connect's
// Struct text), and the content of a logical-message outbox event.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "outbox/connect/connect_struct_text.hpp"
#include "outbox/connect/json_expansion.hpp"
#include "outbox/router/message_row.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string out;
    if (!outbox::connect::JsonExpansion{}.expand(text, out)) {
        std::string struct_text;
        outbox::connect::append_struct_text_of_json(struct_text, out);
    }
    outbox::connect::JsonExpansion{outbox::config::JsonNullBehavior::optional_bytes,
                                  outbox::config::JsonEmptyArrayBehavior::optional_string}
        .expand(text, out);
    outbox::connect::SchemaPtr schema;
    outbox::connect::JsonExpansion{}.expand(text, out, "payload", &schema);
    outbox::router::MessageRow row;
    row.parse(text, "created_at");
    return 0;
}
