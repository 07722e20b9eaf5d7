#pragma once

#include "outbox/router/connect_model.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace outbox::router {

// The W3C trace context a writer stored with its outbox row, in the column Debezium calls
// tracing.span.context.field: java.util.Properties text, as Debezium's Quarkus outbox extension
// writes it ("#<date>\ntraceparent=00-<trace id>-<span id>-01\n", tracestate when it has one).
struct TraceContext {
    std::string traceparent;  // version 00 form
    std::string tracestate;   // empty when none
};

// nullopt when the text holds no valid traceparent (W3C Trace Context: version other than ff,
// 32 and 16 lower-case hex digits not all zero, 2 of flags).
std::optional<TraceContext> parse_trace_context(std::string_view text);

}  // namespace outbox::router
