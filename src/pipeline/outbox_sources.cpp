#include "outbox/pipeline/outbox_sources.hpp"

#include <algorithm>

#include "outbox/util/errors.hpp"

namespace outbox::pipeline {

OutboxSources::Id OutboxSources::id(Kind kind, std::string_view name) {
    const auto found = std::find_if(sources_.begin(), sources_.end(),
                                    [&](const Source& s) { return s.kind == kind && s.name == name; });
    if (found != sources_.end()) return static_cast<Id>(found - sources_.begin());
    if (sources_.size() == UINT16_MAX) throw DefiniteError("too many distinct outbox sources (tables and message prefixes)");
    const bool table = kind == Kind::table;
    const std::string label = table ? std::string(name) : "message:" + std::string(name);
    sources_.push_back({kind, std::string(name), table ? std::string(name) : "message prefix " + std::string(name), label,
                        &metrics_.events_received.with({label}), &metrics_.events_skipped.with({label, "update"}),
                        &metrics_.events_skipped.with({label, "invalid"}),
                        &metrics_.events_skipped.with({label, "undeliverable"})});
    return static_cast<Id>(sources_.size() - 1);
}

}  // namespace outbox::pipeline
