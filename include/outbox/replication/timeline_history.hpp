#pragma once

#include <optional>
#include <string_view>

#include "outbox/util/lsn.hpp"

namespace outbox::replication {

// Where `timeline` ended, read from a timeline history file (TIMELINE_HISTORY's content: one
// "parent-timeline <tab> switch-LSN <tab> reason" line per ancestor). Nothing when the history
// does not list it (it is not an ancestor). Throws ProtocolError on a line it cannot read.
std::optional<Lsn> timeline_switch_point(std::string_view history, int timeline);

}  // namespace outbox::replication
