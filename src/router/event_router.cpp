#include "outbox/router/event_router.hpp"

#include "outbox/util/errors.hpp"

namespace outbox::router {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string row_context(const RowOrigin& origin, const BoundColumn& column, std::string_view option) {
    return "outbox table " + origin.table->name.qualified() + ", column \"" + column.name + "\" (" +
           std::string(option) + "), transaction committing at LSN " + format_lsn(origin.commit_lsn);
}

}  // namespace

bool decode_bytea_hex(std::string_view text, std::string& out) {
    out.clear();
    if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0) return false;
    out.reserve((text.size() - 2) / 2);
    for (std::size_t i = 2; i < text.size(); i += 2) {
        const int high = hex_value(text[i]);
        const int low = hex_value(text[i + 1]);
        if (high < 0 || low < 0) return false;
        out.push_back(static_cast<char>(high << 4 | low));
    }
    return true;
}

std::string base64_encode(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned n = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        out += {kAlphabet[n >> 18], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], kAlphabet[n & 63]};
    }
    if (i + 1 == bytes.size()) {
        const unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
        out += {kAlphabet[n >> 18], kAlphabet[(n >> 12) & 63], '=', '='};
    } else if (i + 2 == bytes.size()) {
        const unsigned n = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += {kAlphabet[n >> 18], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], '='};
    }
    return out;
}

EventRouter::EventRouter(const config::OutboxSettings& settings)
    : topics_(settings.route_topic_regex, settings.route_topic_replacement, settings.route_topic_regex_location) {}

std::optional<std::string_view> EventRouter::column_bytes(const RowOrigin& origin, pgoutput::Tuple row,
                                                          const BoundColumn& column, std::string& scratch,
                                                          std::string_view option) const {
    if (column.index >= row.size())
        throw ProtocolError(row_context(origin, column, option) + ": the row has " + std::to_string(row.size()) +
                            " columns but RELATION described more");
    const auto& value = row[column.index];
    switch (value.kind) {
        case pgoutput::ValueKind::null:
            return std::nullopt;
        case pgoutput::ValueKind::text:
            if (column.type_oid != kByteaOid) return value.data;
            if (!decode_bytea_hex(value.data, scratch))
                throw DefiniteError(row_context(origin, column, option) + ": bytea value is not in hex format");
            return std::string_view(scratch);
        case pgoutput::ValueKind::unchanged_toast:
        case pgoutput::ValueKind::binary:
            break;
    }
    throw ProtocolError(row_context(origin, column, option) + ": unexpected value kind '" +
                        std::string(1, static_cast<char>(value.kind)) + "' in an INSERT");
}

OutboxRecord EventRouter::route(const RowOrigin& origin, pgoutput::Tuple row, std::int64_t commit_time_ms) {
    const OutboxTable& table = *origin.table;
    OutboxRecord record;
    record.timestamp_ms = commit_time_ms;

    const auto route_by = column_bytes(origin, row, table.route_by, route_scratch_, "outbox.route.by.field");
    record.key = column_bytes(origin, row, table.key, key_scratch_, "outbox.table.field.event.key");
    record.value = column_bytes(origin, row, table.payload, value_scratch_, "outbox.table.field.event.payload");
    std::optional<std::string_view> id;
    if ((id = column_bytes(origin, row, table.id, id_scratch_, "outbox.table.field.event.id")) &&
        table.id.type_oid == kByteaOid) {
        id_scratch_ = base64_encode(*id);
        id = id_scratch_;
    }
    headers_[0] = {"id", id};
    record.headers = headers_;

    const auto invalid = [&](const std::string& cause) {
        const auto owned = [](std::optional<std::string_view> v) {
            return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
        };
        return InvalidRowError(row_context(origin, table.route_by, "outbox.route.by.field") + ": " + cause,
                               table.name.qualified(), owned(record.key), owned(record.value), owned(id));
    };
    if (!route_by) throw invalid("the route-by value is NULL, so the event has no topic");
    const std::string& topic = topics_.topic_for(*route_by);
    if (!is_legal_topic_name(topic))
        throw invalid("topic \"" + topic + "\" is not a legal Kafka topic name (1-249 characters from A-Z a-z 0-9 . _ -)");
    record.topic = topic;
    return record;
}

}  // namespace outbox::router
