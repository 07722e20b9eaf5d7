// pgoutput messages (XLogData payloads), each decoded alone, and then the same bytes cut into
// messages by a two-byte length prefix so that one decoder sees a sequence.
#include <cstddef>
#include <cstdint>
#include <span>

#include "outbox/pgoutput/decoder.hpp"
#include "outbox/util/errors.hpp"

namespace {

void decode(outbox::pgoutput::Decoder& decoder, std::span<const char> bytes) {
    try {
        decoder.decode(bytes, 0x16B3748);
    } catch (const outbox::DefiniteError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    outbox::pgoutput::Decoder decoder;
    std::span<const char> bytes(reinterpret_cast<const char*>(data), size);
    decode(decoder, bytes);
    while (bytes.size() >= 2) {
        const std::size_t length = (static_cast<std::uint8_t>(bytes[0]) << 8 | static_cast<std::uint8_t>(bytes[1]));
        bytes = bytes.subspan(2);
        const auto message = bytes.subspan(0, std::min(length, bytes.size()));
        decode(decoder, message);
        bytes = bytes.subspan(message.size());
    }
    return 0;
}
