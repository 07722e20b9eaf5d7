#pragma once

// The frontend/backend protocol's message layer, for the CopyBoth stream of START_REPLICATION
// read straight from the socket: a type byte, then an int32 length that counts itself and the
// body. Pure codec, no I/O. Layouts from PostgreSQL's "Message Formats" documentation and libpq's
// fe-protocol3.c (pqParseInput3, getCopyDataMessage, pqGetErrorNotice3).

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace outbox::replication {

constexpr std::size_t kBackendHeaderSize = 5;

// The length is a signed int32, as libpq reads it: a longer claim means the stream is out of step.
constexpr std::size_t kMaxBackendMessageSize = 0x7fffffff;

struct BackendMessage {
    char type = 0;
    std::span<const char> body;  // views the input
};

// The size of the message that starts `bytes`, header included, or 0 while its header is not
// all there. Throws ProtocolError for a length that cannot be (below 4, above the limit).
std::size_t backend_message_size(std::span<const char> bytes);



// The fields of an ErrorResponse or NoticeResponse that the router reports.
struct ServerMessage {
    std::string severity;  // localized ('S'), as libpq prints it
    std::string sqlstate;
    std::string message;
    std::string detail;
    std::string hint;
    std::string context;

    // On one line, the way libpq words it at its default verbosity:
    // "ERROR:  message; DETAIL:  ...; HINT:  ...; CONTEXT:  ...".
    std::string text() const;
};

// Throws ProtocolError if a field is not terminated.
ServerMessage parse_server_message(std::span<const char> body);

std::string encode_query(std::string_view sql);                // 'Q'
std::string encode_copy_data(std::span<const char> payload);  // 'd'
constexpr std::array<char, 5> kCopyDone{'c', 0, 0, 0, 4};

}  // namespace outbox::replication
