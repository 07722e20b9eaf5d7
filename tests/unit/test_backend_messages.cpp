#define BOOST_TEST_MODULE backend_messages
#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::replication;

namespace {

std::span<const char> bytes_of(std::string_view text) { return {text.data(), text.size()}; }

}  // namespace

BOOST_AUTO_TEST_CASE(a_message_is_whole_only_once_its_length_is_all_there) {
    const std::string copy_data = encode_copy_data(bytes_of("hello"));
    BOOST_TEST(copy_data == std::string("d\0\0\0\x09hello", 10));
    for (std::size_t cut = 0; cut < kBackendHeaderSize; ++cut)
        BOOST_TEST(backend_message_size(bytes_of(std::string_view(copy_data).substr(0, cut))) == 0u);
    // The header gives the size before the body is there.
    BOOST_TEST(backend_message_size(bytes_of(std::string_view(copy_data).substr(0, 6))) == 10u);
    BOOST_TEST(backend_message_size(bytes_of(copy_data + "Z\0\0\0\x05I")) == 10u);
}

BOOST_AUTO_TEST_CASE(an_impossible_length_is_a_protocol_error_naming_the_type) {
    const auto error_for = [](const std::string& header) {
        try {
            backend_message_size(bytes_of(header));
        } catch (const ProtocolError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    BOOST_TEST(error_for(std::string("d\0\0\0\x03", 5)) ==
               "postgres: message 'd' claims a length of 3 bytes: the stream is out of step");
    BOOST_TEST(error_for(std::string("\x01\x80\0\0\0", 5)) ==
               "postgres: message 0x01 claims a length of 2147483648 bytes: the stream is out of step");
}

BOOST_AUTO_TEST_CASE(an_error_response_reads_as_libpq_prints_it) {
    const std::string body("SERROR\0VERROR\0C55006\0Mreplication slot \"s\" is active for PID 7\0"
                           "Dsome detail\0Hsome hint\0Fslot.c\0L514\0\0", 101);
    const auto error = parse_server_message(bytes_of(body));
    BOOST_TEST(error.sqlstate == "55006");
    BOOST_TEST(error.text() ==
               "ERROR:  replication slot \"s\" is active for PID 7; DETAIL:  some detail; HINT:  some hint");

    const std::string fatal("SFATAL\0C57P01\0Mterminating connection due to administrator command\0\0", 68);
    BOOST_TEST(parse_server_message(bytes_of(fatal)).text() == "FATAL:  terminating connection due to administrator command");
}

BOOST_AUTO_TEST_CASE(an_unterminated_field_is_a_protocol_error) {
    const std::string body("SERROR\0Mcut off", 15);
    BOOST_CHECK_THROW(parse_server_message(bytes_of(body)), ProtocolError);
}

BOOST_AUTO_TEST_CASE(a_query_and_copy_done_are_framed) {
    BOOST_TEST(encode_query("SELECT 1") == std::string("Q\0\0\0\x0dSELECT 1\0", 14));
    BOOST_TEST(std::string(kCopyDone.data(), kCopyDone.size()) == std::string("c\0\0\0\x04", 5));
}
