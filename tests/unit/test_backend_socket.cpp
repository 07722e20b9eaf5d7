#define BOOST_TEST_MODULE backend_socket
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "outbox/replication/backend_messages.hpp"
#include "outbox/replication/backend_socket.hpp"
#include "outbox/replication/socket_transport.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::replication;

// BackendSocket on a plain socket (SocketTransport), against the other end of a socket pair.

namespace {

class SocketPair {
public:
    SocketPair() { BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_) == 0); }
    ~SocketPair() {
        close(fds_[0]);
        if (fds_[1] >= 0) close(fds_[1]);
    }
    SocketPair(const SocketPair&) = delete;
    SocketPair& operator=(const SocketPair&) = delete;

    int router() const { return fds_[0]; }
    int server() const { return fds_[1]; }
    void send(const std::string& bytes) const {
        BOOST_REQUIRE(::send(server(), bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
    }
    void close_server() {
        close(fds_[1]);
        fds_[1] = -1;
    }

private:
    int fds_[2] = {-1, -1};
};

std::string body_of(const BackendMessage& message) { return {message.body.begin(), message.body.end()}; }

std::string lost_error(BackendSocket& socket, bool receiving) {
    try {
        if (receiving) socket.receive();
        else socket.next_message();
    } catch (const TransientError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

// A read returns what it took from the socket; the messages before the server's close come
// out, then the close.
BOOST_AUTO_TEST_CASE(the_messages_before_a_close_come_out_before_it) {
    SocketPair pair;
    BackendSocket socket(std::make_unique<SocketTransport>(pair.router()));
    const std::string wire = encode_copy_data(std::string("first")) + encode_copy_data(std::string("second")) +
                             std::string("d\0\0\0\x09" "thi", 8);  // the third cut short
    pair.send(wire);
    pair.close_server();
    BOOST_TEST(socket.receive() == wire.size());
    BOOST_TEST(body_of(*socket.next_message()) == "first");
    BOOST_TEST(body_of(*socket.next_message()) == "second");
    BOOST_TEST(!socket.next_message());
    BOOST_TEST(lost_error(socket, true) == "postgres: replication connection lost: the server closed the connection");
    BOOST_TEST(lost_error(socket, false) == "postgres: replication connection lost: the server closed the connection");
}

BOOST_AUTO_TEST_CASE(a_read_with_nothing_on_the_socket_takes_nothing) {
    SocketPair pair;
    BackendSocket socket(std::make_unique<SocketTransport>(pair.router()));
    BOOST_TEST(socket.receive() == 0u);
    BOOST_TEST(!socket.next_message());
}

// What the socket does not take now stays queued, in order, for the next flush.
BOOST_AUTO_TEST_CASE(a_full_socket_keeps_the_rest_queued) {
    SocketPair pair;
    BackendSocket socket(std::make_unique<SocketTransport>(pair.router()));
    const std::string message = encode_copy_data(std::string(4 << 20, 'x'));
    socket.write(message);
    BOOST_TEST(!socket.flush());
    std::string received;
    char chunk[65536];
    while (received.size() < message.size()) {
        const ssize_t read = recv(pair.server(), chunk, sizeof chunk, MSG_DONTWAIT);
        if (read > 0) received.append(chunk, static_cast<std::size_t>(read));
        socket.flush();
    }
    BOOST_TEST(socket.flush());
    BOOST_TEST((received == message));
}
