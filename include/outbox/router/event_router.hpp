#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/router/outbox_table.hpp"
#include "outbox/router/topic_router.hpp"

namespace outbox::router {

// The Kafka record an outbox row becomes (Debezium EventRouter defaults, headers-only mode).
// Views point into the decoded row or into the router's scratch buffers: valid until the next
// route() call.
struct OutboxRecord {
    std::string_view topic;
    std::optional<std::string_view> key;    // nullopt: no key
    std::optional<std::string_view> value;  // nullopt: null value
    std::optional<std::string_view> id;     // the "id" header; nullopt: null header value
    std::int64_t timestamp_ms = 0;
};

// Where a row came from, for error messages that let an operator find it.
struct RowOrigin {
    const OutboxTable* table = nullptr;
    Lsn commit_lsn = 0;
};

class EventRouter {
public:
    explicit EventRouter(const config::OutboxSettings& settings);

    // Routes one INSERTed outbox row. Throws DefiniteError naming table, column and commit LSN
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
};

// PostgreSQL type OIDs the router treats specially.
inline constexpr std::uint32_t kByteaOid = 17;

// Decodes bytea's text output ("\x0a1b..."). Returns false for anything else.
bool decode_bytea_hex(std::string_view text, std::string& out);
std::string base64_encode(std::string_view bytes);

}  // namespace outbox::router
