// Backend protocol messages as read from the replication socket: framing, then the body.
#include <cstddef>
#include <cstdint>
#include <span>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/util/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::span<const char> bytes(reinterpret_cast<const char*>(data), size);
    try {
        // A stream of messages, as a read delivers them: each framed by its type byte and length.
        while (!bytes.empty()) {
            const std::size_t length = outbox::replication::backend_message_size(bytes);
            if (length == 0 || length > bytes.size()) break;
            try {
                outbox::replication::parse_server_message(bytes.subspan(0, length));
            } catch (const outbox::DefiniteError&) {
            }
            bytes = bytes.subspan(length);
        }
    } catch (const outbox::DefiniteError&) {
    }
    return 0;
}
