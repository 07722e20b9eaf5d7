#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/observability/metrics.hpp"

namespace outbox::pipeline {

// Where outbox events come from: an outbox table or a logical-message prefix, numbered so a
// delivery tag can name one in 16 bits, each with its counters looked up once so that counting
// costs one atomic add.
class OutboxSources {
public:
    enum class Kind { table, message_prefix };
    using Id = std::uint16_t;

    struct Source {
        Kind kind;
        std::string name;         // schema-qualified table, or the prefix
        std::string description;  // "public.outbox" or "message prefix outbox", as errors name it
        std::string label;        // the metrics label: "public.outbox" or "message:outbox"
        observability::Counter* received;
        observability::Counter* skipped_update;
        observability::Counter* skipped_invalid;
        observability::Counter* skipped_undeliverable;
    };

    explicit OutboxSources(observability::Metrics& metrics) : metrics_(metrics) {}

    // The id of a source, registered at its first mention. Throws DefiniteError past 65,535.
    Id id(Kind kind, std::string_view name);
    const Source& operator[](Id id) const { return sources_[id]; }

private:
    observability::Metrics& metrics_;
    std::vector<Source> sources_;
};

}  // namespace outbox::pipeline
