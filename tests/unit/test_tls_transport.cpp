#define BOOST_TEST_MODULE tls_transport
#include <boost/test/unit_test.hpp>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "error_of.hpp"
#include "outbox/replication/backend_messages.hpp"
#include "outbox/replication/backend_socket.hpp"
#include "outbox/replication/tls_transport.hpp"
#include "outbox/util/errors.hpp"
#include "test_ca.hpp"

using namespace outbox;
using namespace outbox::replication;
using outbox::test::error_of;

// TlsTransport from bytes: a TLS connection in memory between a client (the router's side,
// whose SSL object plays libpq's) and a server (the walsender's), the server's records handed to
// the transport as a socket would, cut wherever a test says.

namespace {

struct SslContextFree {
    void operator()(SSL_CTX* context) const { SSL_CTX_free(context); }
};
struct SslFree {
    void operator()(SSL* tls) const { SSL_free(tls); }
};

// The socket under the transport: each receive() takes from the next of `arrivals` as much as
// the span has room for, and reports a close once they are out if `closed`. What flush() sends
// is kept in `sent` (nothing while `takes_nothing`).
class ScriptedSocket final : public StreamTransport {
public:
    std::deque<std::string> arrivals;
    bool closed = false;
    bool takes_nothing = false;
    std::string sent;

    int fd() const override { return -1; }
    Received receive(std::span<char> into) override {
        if (arrivals.empty()) return closed ? Received{0, 0, "the server closed the connection"} : Received{};
        std::string& next = arrivals.front();
        const std::size_t size = std::min(next.size(), into.size());
        std::memcpy(into.data(), next.data(), size);
        next.erase(0, size);
        if (next.empty()) arrivals.pop_front();
        return {size, size, std::nullopt};
    }
    bool holds_input() const override { return false; }
    Received take_held(std::span<char>) override { return {}; }
    void write(std::span<const char> bytes) override { queued_.append(bytes.data(), bytes.size()); }
    bool flush() override {
        if (!takes_nothing) {
            sent += queued_;
            queued_.clear();
        }
        return queued_.empty();
    }
    std::size_t unsent() const override { return queued_.size(); }

private:
    std::string queued_;
};

const test::CertifiedKey& server_certificate() {
    static const auto certificate = test::test_ca().server("tls-transport", {"localhost"});
    return certificate;
}

// The two ends, after the handshake. Each SSL object has one BIO for both directions, as libpq
// sets up its own (SSL_set_bio(tls, bio, bio)): the two ends of a BIO pair, the wire between them.
class TlsPair {
public:
    explicit TlsPair(int version) {
        server_context_.reset(SSL_CTX_new(TLS_server_method()));
        client_context_.reset(SSL_CTX_new(TLS_client_method()));
        for (SSL_CTX* context : {server_context_.get(), client_context_.get()}) {
            BOOST_REQUIRE(SSL_CTX_set_min_proto_version(context, version) == 1);
            BOOST_REQUIRE(SSL_CTX_set_max_proto_version(context, version) == 1);
        }
        BOOST_REQUIRE(SSL_CTX_use_certificate_chain_file(server_context_.get(), server_certificate().certificate.c_str()) == 1);
        BOOST_REQUIRE(SSL_CTX_use_PrivateKey_file(server_context_.get(), server_certificate().key.c_str(), SSL_FILETYPE_PEM) == 1);
        BOOST_REQUIRE(SSL_CTX_load_verify_locations(client_context_.get(), test::test_ca().certificate().c_str(), nullptr) == 1);
        SSL_CTX_set_verify(client_context_.get(), SSL_VERIFY_PEER, nullptr);
        client_.reset(SSL_new(client_context_.get()));
        server_.reset(SSL_new(server_context_.get()));
        BOOST_REQUIRE(BIO_new_bio_pair(&client_end_, 1 << 20, &server_end_, 1 << 20) == 1);
        // One reference each, which SSL_set_bio makes two (one per direction), as libpq's.
        SSL_set_bio(client_.get(), client_end_, client_end_);
        SSL_set_bio(server_.get(), server_end_, server_end_);
        SSL_set_connect_state(client_.get());
        SSL_set_accept_state(server_.get());
        for (int round = 0; round < 10 && !(SSL_is_init_finished(client_.get()) && SSL_is_init_finished(server_.get()));
             ++round) {
            SSL_do_handshake(client_.get());
            SSL_do_handshake(server_.get());
        }
        BOOST_REQUIRE(SSL_is_init_finished(client_.get()));
        BOOST_REQUIRE(SSL_is_init_finished(server_.get()));
        // What followed the handshake (TLS 1.3's session tickets) is read, as libpq has read it
        // by the time it has run a statement.
        BOOST_REQUIRE(client_reads() == "");
        ERR_clear_error();
    }

    SSL* client() const { return client_.get(); }
    BIO* client_bio() const { return client_end_; }

    // The server sends `messages`, one SSL_write each, as the walsender does.
    void send(const std::vector<std::string>& messages) const {
        for (const auto& message : messages)
            BOOST_REQUIRE(SSL_write(server_.get(), message.data(), static_cast<int>(message.size())) > 0);
    }
    // The records it sends for them, taken off the wire.
    std::string records(const std::vector<std::string>& messages) const {
        send(messages);
        return on_wire(client_end_);
    }
    // Those bytes sent by the server that it wrote on its own (alerts, a key update).
    std::string server_output() const { return on_wire(client_end_); }

    // What the server decrypts of `bytes` from the client; `closed` says whether it ended with a
    // close_notify.
    std::string server_reads(const std::string& bytes, bool* closed = nullptr) const {
        std::size_t written = 0;
        BOOST_REQUIRE(bytes.empty() || BIO_write_ex(client_end_, bytes.data(), bytes.size(), &written) == 1);
        return reads(server_.get(), closed);
    }

    // What the client decrypts from its own BIO.
    std::string client_reads(bool* closed = nullptr) const { return reads(client_.get(), closed); }

    std::string server_close_notify() const {
        SSL_shutdown(server_.get());
        return on_wire(client_end_);
    }
    void server_key_update() const { BOOST_REQUIRE(SSL_key_update(server_.get(), SSL_KEY_UPDATE_REQUESTED) == 1); }

private:
    // The bytes that wait to be read at `end` (the other end wrote them).
    static std::string on_wire(BIO* end) {
        std::string bytes;
        char chunk[4096];
        std::size_t read = 0;
        while (BIO_read_ex(end, chunk, sizeof chunk, &read) == 1 && read > 0) bytes.append(chunk, read);
        return bytes;
    }
    static std::string reads(SSL* tls, bool* closed) {
        std::string plaintext;
        char chunk[4096];
        std::size_t read = 0;
        while (SSL_read_ex(tls, chunk, sizeof chunk, &read) == 1) plaintext.append(chunk, read);
        const int code = SSL_get_error(tls, 0);
        if (closed) *closed = code == SSL_ERROR_ZERO_RETURN;
        else BOOST_REQUIRE(code == SSL_ERROR_WANT_READ);
        ERR_clear_error();
        return plaintext;
    }

    std::unique_ptr<SSL_CTX, SslContextFree> server_context_;
    std::unique_ptr<SSL_CTX, SslContextFree> client_context_;
    std::unique_ptr<SSL, SslFree> client_;
    std::unique_ptr<SSL, SslFree> server_;
    BIO* client_end_ = nullptr;  // owned by client_
    BIO* server_end_ = nullptr;  // owned by server_
};

const int kVersions[] = {TLS1_2_VERSION, TLS1_3_VERSION};

// A BackendSocket over TlsTransport over a ScriptedSocket, as the replication stream sets it up.
struct Reader {
    ScriptedSocket* socket;
    BackendSocket messages;

    explicit Reader(const TlsPair& pair) : Reader(pair, std::make_unique<ScriptedSocket>()) {}

private:
    Reader(const TlsPair& pair, std::unique_ptr<ScriptedSocket> scripted)
        : socket(scripted.get()), messages(std::make_unique<TlsTransport>(pair.client(), std::move(scripted))) {}
};

std::string copy_data(std::size_t size, char fill) { return encode_copy_data(std::string(size, fill)); }

std::string as_message(const BackendMessage& message) {
    return message.type == 'd' ? encode_copy_data(message.body) : std::string(1, message.type);
}

// Reads until the script is out: after every read, every message that arrived whole.
std::vector<std::string> read_all(Reader& reader, std::size_t* socket_bytes = nullptr) {
    std::vector<std::string> messages;
    for (;;) {
        while (const auto message = reader.messages.next_message()) messages.push_back(as_message(*message));
        if (reader.socket->arrivals.empty()) return messages;
        const std::size_t taken = reader.messages.receive();
        if (socket_bytes) *socket_bytes += taken;
    }
}

// The number of whole TLS records in the first `size` bytes of `wire`.
std::size_t whole_records(const std::string& wire, std::size_t size) {
    std::size_t records = 0;
    for (std::size_t at = 0; at + 5 <= size;) {
        const std::size_t length = (static_cast<unsigned char>(wire[at + 3]) << 8) | static_cast<unsigned char>(wire[at + 4]);
        if (at + 5 + length > size) break;
        at += 5 + length;
        ++records;
    }
    return records;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_message_arrives_whole_wherever_the_socket_cuts_the_records) {
    for (const int version : kVersions) {
        BOOST_TEST_CONTEXT("TLS version " << std::hex << version) {
            TlsPair pair(version);
            const std::vector<std::string> messages{copy_data(0, 'a'), copy_data(60, 'b'), copy_data(300, 'c')};
            std::size_t wire_size = 0;
            {
                Reader reader(pair);
                const std::string wire = pair.records(messages);
                wire_size = wire.size();
                for (const char byte : wire) reader.socket->arrivals.emplace_back(1, byte);
                BOOST_TEST(read_all(reader) == messages);
            }
            for (std::size_t cut = 1; cut < wire_size; ++cut) {
                BOOST_TEST_CONTEXT("cut after " << cut << " of " << wire_size << " bytes") {
                    Reader reader(pair);
                    const std::string wire = pair.records(messages);
                    reader.socket->arrivals = {wire.substr(0, cut), wire.substr(cut)};
                    std::size_t socket_bytes = 0;
                    BOOST_TEST(read_all(reader, &socket_bytes) == messages);
                    BOOST_TEST(socket_bytes == wire.size());
                }
            }
        }
    }
}

// Every record the socket brought whole is decrypted before the reader waits, even when the
// plaintext does not fit the read's buffer: here the end of a 12 KiB record comes with many
// small ones.
BOOST_AUTO_TEST_CASE(every_whole_record_of_a_read_is_handed_out_before_the_reader_waits) {
    for (const int version : kVersions) {
        BOOST_TEST_CONTEXT("TLS version " << std::hex << version) {
            TlsPair pair(version);
            std::vector<std::string> messages{copy_data(12000, 'L')};
            for (int i = 0; i < 200; ++i) messages.push_back(copy_data(450, static_cast<char>('a' + i % 26)));
            const std::string wire = pair.records(messages);
            Reader reader(pair);
            reader.socket->arrivals = {wire.substr(0, 6000), wire.substr(6000)};
            std::vector<std::string> received;
            std::size_t taken = 0;
            std::vector<std::size_t> reads;
            for (;;) {
                while (const auto message = reader.messages.next_message()) received.push_back(as_message(*message));
                BOOST_TEST(received.size() == whole_records(wire, taken), "after " << taken << " bytes");
                if (reader.socket->arrivals.empty()) break;
                reads.push_back(reader.messages.receive());
                taken += reads.back();
            }
            BOOST_TEST(received == messages);
            // Reads are counted in socket bytes, and sized as on a plain connection.
            BOOST_TEST(taken == wire.size());
            BOOST_TEST(reads.at(1) == 16384u);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_message_larger_than_the_buffer_arrives_whole) {
    TlsPair pair(TLS1_3_VERSION);
    const std::vector<std::string> messages{copy_data(40000, 'x'), copy_data(10, 'y'), copy_data(100000, 'z')};
    const std::string wire = pair.records(messages);
    BOOST_TEST(whole_records(wire, wire.size()) > messages.size());  // several records a message
    Reader reader(pair);
    reader.socket->arrivals = {wire};
    BOOST_TEST(read_all(reader) == messages);
}

BOOST_AUTO_TEST_CASE(a_close_notify_ends_the_connection_after_the_messages_before_it) {
    for (const int version : kVersions) {
        BOOST_TEST_CONTEXT("TLS version " << std::hex << version) {
            TlsPair pair(version);
            const std::vector<std::string> messages{copy_data(100, 'a'), copy_data(200, 'b')};
            Reader reader(pair);
            const std::string records = pair.records(messages);
            reader.socket->arrivals = {records + pair.server_close_notify()};
            reader.messages.receive();
            BOOST_TEST(as_message(*reader.messages.next_message()) == messages[0]);
            BOOST_TEST(as_message(*reader.messages.next_message()) == messages[1]);
            BOOST_TEST(error_of<TransientError>([&] { reader.messages.next_message(); }) ==
                       "postgres: replication connection lost: the server closed the connection");
            BOOST_TEST(error_of<TransientError>([&] { reader.messages.receive(); }) ==
                       "postgres: replication connection lost: the server closed the connection");
        }
    }
}

BOOST_AUTO_TEST_CASE(a_socket_closed_without_close_notify_ends_the_connection_after_the_messages_before_it) {
    TlsPair pair(TLS1_3_VERSION);
    const std::string wire = pair.records({copy_data(100, 'a'), copy_data(200, 'b')});
    Reader reader(pair);
    reader.socket->arrivals = {wire.substr(0, wire.size() - 10)};  // the second record cut short
    reader.socket->closed = true;
    BOOST_TEST(reader.messages.receive() == wire.size() - 10);
    BOOST_TEST(as_message(*reader.messages.next_message()) == copy_data(100, 'a'));
    BOOST_TEST(!reader.messages.next_message());
    BOOST_TEST(error_of<TransientError>([&] { reader.messages.receive(); }) ==
               "postgres: replication connection lost: the server closed the connection");
}

BOOST_AUTO_TEST_CASE(a_corrupt_record_ends_the_connection_naming_the_tls_error) {
    for (const int version : kVersions) {
        BOOST_TEST_CONTEXT("TLS version " << std::hex << version) {
            TlsPair pair(version);
            std::string wire = pair.records({copy_data(100, 'a'), copy_data(200, 'b')});
            wire[wire.size() - 50] ^= 0x01;  // in the second record's ciphertext
            Reader reader(pair);
            reader.socket->arrivals = {wire};
            reader.messages.receive();
            BOOST_TEST(as_message(*reader.messages.next_message()) == copy_data(100, 'a'));
            const auto error = error_of<TransientError>([&] { reader.messages.next_message(); });
            BOOST_TEST(error == "postgres: replication connection lost: SSL error: decryption failed or bad record mac");
        }
    }
}

// The server's fatal alert: here its answer to a corrupt record from the client.
BOOST_AUTO_TEST_CASE(an_alert_from_the_server_ends_the_connection_naming_it) {
    TlsPair pair(TLS1_3_VERSION);
    Reader reader(pair);
    reader.messages.write(encode_query("SELECT 1"));
    std::string corrupt = reader.socket->sent;
    corrupt[corrupt.size() - 1] ^= 0x01;
    bool closed = false;
    BOOST_TEST(pair.server_reads(corrupt, &closed) == "");
    BOOST_TEST(!closed);
    reader.socket->arrivals = {pair.server_output()};
    BOOST_REQUIRE(!reader.socket->arrivals.front().empty());
    reader.messages.receive();
    BOOST_TEST(error_of<TransientError>([&] { reader.messages.next_message(); }) ==
               "postgres: replication connection lost: SSL error: sslv3 alert bad record mac");
}

BOOST_AUTO_TEST_CASE(what_the_router_writes_reaches_the_server_as_records_it_reads) {
    for (const int version : kVersions) {
        BOOST_TEST_CONTEXT("TLS version " << std::hex << version) {
            TlsPair pair(version);
            Reader reader(pair);
            const std::string query = encode_query("START_REPLICATION SLOT s LOGICAL 0/0");
            const std::string status = encode_copy_data(std::string(34, 'r'));
            reader.messages.write(query);
            reader.messages.write(status);
            BOOST_TEST(pair.server_reads(reader.socket->sent) == query + status);
            // A socket that takes nothing keeps the records queued, whole, for later.
            reader.socket->sent.clear();
            reader.socket->takes_nothing = true;
            reader.messages.write(status);
            BOOST_TEST(!reader.messages.flush());
            BOOST_TEST(reader.socket->sent == "");
            reader.socket->takes_nothing = false;
            BOOST_TEST(reader.messages.flush());
            BOOST_TEST(pair.server_reads(reader.socket->sent) == status);
        }
    }
}

// A key update the server asks for: OpenSSL answers it with the next write, and both directions
// go on under the new keys.
BOOST_AUTO_TEST_CASE(a_key_update_the_server_asks_for_is_answered) {
    TlsPair pair(TLS1_3_VERSION);
    Reader reader(pair);
    pair.server_key_update();
    reader.socket->arrivals = {pair.records({copy_data(50, 'a')})};
    BOOST_TEST(read_all(reader) == std::vector<std::string>{copy_data(50, 'a')});
    const std::string status = encode_copy_data(std::string(34, 'r'));
    reader.messages.write(status);
    BOOST_TEST(pair.server_reads(reader.socket->sent) == status);
    reader.socket->arrivals = {pair.records({copy_data(60, 'b')})};
    BOOST_TEST(read_all(reader) == std::vector<std::string>{copy_data(60, 'b')});
}

// libpq's own BIO is back once the transport is gone, and the TLS connection goes on over it:
// libpq's Terminate and close_notify reach the server.
BOOST_AUTO_TEST_CASE(the_connections_own_bio_is_back_when_the_transport_ends) {
    for (const int version : kVersions) {
        BOOST_TEST_CONTEXT("TLS version " << std::hex << version) {
            TlsPair pair(version);
            {
                Reader reader(pair);
                BOOST_TEST(SSL_get_rbio(pair.client()) != pair.client_bio());
                BOOST_TEST(SSL_get_wbio(pair.client()) != pair.client_bio());
                reader.socket->arrivals = {pair.records({copy_data(70, 'a')})};
                BOOST_TEST(read_all(reader).size() == 1u);
                reader.messages.write(kCopyDone);
                BOOST_TEST(pair.server_reads(reader.socket->sent) == std::string(kCopyDone.data(), kCopyDone.size()));
            }
            BOOST_TEST(SSL_get_rbio(pair.client()) == pair.client_bio());
            BOOST_TEST(SSL_get_wbio(pair.client()) == pair.client_bio());
            const std::string terminate("X\0\0\0\x04", 5);
            BOOST_TEST(SSL_write(pair.client(), terminate.data(), static_cast<int>(terminate.size())) == 5);
            BOOST_TEST(SSL_shutdown(pair.client()) == 0);  // close_notify sent
            bool closed = false;
            BOOST_TEST(pair.server_reads("", &closed) == terminate);
            BOOST_TEST(closed);
        }
    }
}

// Records the server never got would make libpq's next ones unreadable to it.
BOOST_AUTO_TEST_CASE(records_left_unsent_stop_what_libpq_would_send_after_them) {
    TlsPair pair(TLS1_3_VERSION);
    {
        Reader reader(pair);
        reader.socket->takes_nothing = true;
        reader.messages.write(kCopyDone);
    }
    BOOST_TEST((SSL_get_shutdown(pair.client()) & SSL_SENT_SHUTDOWN) != 0);
    BOOST_TEST(SSL_write(pair.client(), "X", 1) <= 0);
    ERR_clear_error();
    bool closed = false;
    BOOST_TEST(pair.server_reads("", &closed) == "");
    BOOST_TEST(!closed);
}

// Every byte after START_REPLICATION must be the transport's: a TLS connection that already
// holds some is refused, and left as it was.
BOOST_AUTO_TEST_CASE(a_tls_connection_holding_input_is_not_taken_over) {
    TlsPair pair(TLS1_3_VERSION);
    pair.send({"0123456789"});
    char first[4];
    BOOST_REQUIRE(SSL_read(pair.client(), first, sizeof first) == 4);
    const auto error = error_of<ProtocolError>([&] { Reader reader(pair); });
    BOOST_TEST(error == "postgres: the TLS connection holds input that no statement asked for");
    BOOST_TEST(SSL_get_rbio(pair.client()) == pair.client_bio());
    BOOST_TEST(pair.client_reads() == "456789");
}
