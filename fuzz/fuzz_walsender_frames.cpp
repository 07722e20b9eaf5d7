// The walsender's CopyData frames: XLogData ('w') and primary keepalives ('k').
#include <cstddef>
#include <cstdint>
#include <span>

#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        outbox::replication::parse_server_frame({reinterpret_cast<const char*>(data), size});
    } catch (const outbox::DefiniteError&) {
    }
    return 0;
}
