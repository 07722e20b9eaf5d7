#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/router/outbox_table.hpp"
#include "outbox/router/topic_router.hpp"

namespace outbox::router {

// Where a row came from, for error messages that let an operator find it.
struct RowOrigin {
    const OutboxTable* table = nullptr;
    Lsn commit_lsn = 0;
};

// Routes the rows of one outbox table's settings (Debezium EventRouter, headers-only mode).

class EventRouter {
public:
    explicit EventRouter(const config::OutboxSettings& settings);

    // Routes one INSERTed outbox row. Throws InvalidRowError naming table, column and commit LSN
    // when the row cannot be routed (NULL route-by value, illegal topic name, bad bytea text).
    OutboxRecord route(const RowOrigin& origin, pgoutput::Tuple row, std::int64_t commit_time_ms);

private:
    std::optional<std::string_view> column_bytes(const RowOrigin& origin, pgoutput::Tuple row,
                                                 const BoundColumn& column, std::string& scratch,
                                                 std::string_view option) const;

    TopicRouter topics_;
    std::string route_scratch_;
    std::string key_scratch_;
    std::string value_scratch_;
    std::string id_scratch_;
    KafkaHeader headers_[1];
};

// PostgreSQL type OIDs the router treats specially.
inline constexpr std::uint32_t kByteaOid = 17;

// Decodes bytea's text output ("\x0a1b..."). Returns false for anything else.
bool decode_bytea_hex(std::string_view text, std::string& out);
std::string base64_encode(std::string_view bytes);

}  // namespace outbox::router
