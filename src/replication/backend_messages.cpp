#include "outbox/replication/backend_messages.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/big_endian.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/type_byte.hpp"

namespace outbox::replication {
namespace {

void append_header(std::string& out, char type, std::size_t body_size) {
    const auto length = static_cast<std::uint32_t>(body_size + 4);
    out += type;
    append_be(out, length);
}

}  // namespace

std::size_t backend_message_size(std::span<const char> bytes) {
    if (bytes.size() < kBackendHeaderSize) return 0;
    const auto length = load_be<std::uint32_t>(bytes.data() + 1);
    if (length < 4 || length > kMaxBackendMessageSize)
        throw ProtocolError("postgres: message " + type_byte_text(bytes[0]) + " claims a length of " + std::to_string(length) +
                            " bytes: the stream is out of step");
    return std::size_t{length} + 1;
}

ServerMessage parse_server_message(std::span<const char> body) {
    ServerMessage out;
    std::size_t at = 0;
    while (at < body.size() && body[at] != '\0') {
        const char code = body[at++];
        const void* end = std::memchr(body.data() + at, '\0', body.size() - at);
        if (!end) throw ProtocolError("postgres: error or notice field " + type_byte_text(code) + " is not terminated");
        const std::string_view value(body.data() + at, static_cast<const char*>(end) - (body.data() + at));
        at += value.size() + 1;
        switch (code) {
            case 'S': out.severity = value; break;
            case 'C': out.sqlstate = value; break;
            case 'M': out.message = value; break;
            case 'D': out.detail = value; break;
            case 'H': out.hint = value; break;
            case 'W': out.context = value; break;
            default: break;
        }
    }
    return out;
}

std::string ServerMessage::text() const {
    std::string lines = (severity.empty() ? std::string("ERROR") : severity) + ":  " + message + "\n";
    if (!detail.empty()) lines += "DETAIL:  " + detail + "\n";
    if (!hint.empty()) lines += "HINT:  " + hint + "\n";
    if (!context.empty()) lines += "CONTEXT:  " + context + "\n";
    return one_line(std::move(lines));
}

std::string encode_query(std::string_view sql) {
    std::string out;
    out.reserve(kBackendHeaderSize + sql.size() + 1);
    append_header(out, 'Q', sql.size() + 1);
    out += sql;
    out += '\0';
    return out;
}

std::string encode_copy_data(std::span<const char> payload) {
    std::string out;
    out.reserve(kBackendHeaderSize + payload.size());
    append_header(out, 'd', payload.size());
    out.append(payload.data(), payload.size());
    return out;
}

}  // namespace outbox::replication
