// table.fields.additional.placement: "column:placement[:alias], ...".
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "outbox/config/placement_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        outbox::config::parse_additional_placements({reinterpret_cast<const char*>(data), size});
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
