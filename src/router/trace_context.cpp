#include "outbox/router/trace_context.hpp"

#include <algorithm>

#include "outbox/util/java_properties.hpp"

namespace outbox::router {
namespace {

bool lower_hex(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_zero(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c == '0'; });
}

// "vv-<32>-<16>-ff": a later version may append "-..." after the flags, which version 00 reads past.
std::optional<std::string> version_00(std::string_view text) {
    if (text.size() < 55 || text[2] != '-' || text[35] != '-' || text[52] != '-') return std::nullopt;
    const auto version = text.substr(0, 2);
    const auto trace_id = text.substr(3, 32);
    const auto parent_id = text.substr(36, 16);
    const auto flags = text.substr(53, 2);
    if (!lower_hex(version) || version == "ff" || !lower_hex(trace_id) || !lower_hex(parent_id) || !lower_hex(flags) ||
        all_zero(trace_id) || all_zero(parent_id))
        return std::nullopt;
    if (text.size() > 55 && (version == "00" || text[55] != '-')) return std::nullopt;
    return "00-" + std::string(text.substr(3, 52));
}

}  // namespace

std::optional<TraceContext> parse_trace_context(std::string_view text) {
    std::optional<TraceContext> context;
    std::string tracestate;
    for (const auto& property : util::parse_java_properties(std::string(text))) {
        if (property.key == "traceparent") {
            const auto parent = version_00(property.value);
            context = parent ? std::optional<TraceContext>(TraceContext{*parent, {}}) : std::nullopt;
        } else if (property.key == "tracestate") {
            tracestate = property.value;
        }
    }
    if (context) context->tracestate = std::move(tracestate);
    return context;
}

}  // namespace outbox::router
