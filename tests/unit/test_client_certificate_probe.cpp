#define BOOST_TEST_MODULE client_certificate_probe
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "outbox/kafka/client_certificate_probe.hpp"
#include "outbox/util/file_descriptor.hpp"
#include "test_ca.hpp"

// The probe asks a TLS listener directly whether it refuses the client certificate; it is started
// from librdkafka's error callback, so nothing may escape it, and a probe that could not start
// must not keep later ones from starting.

using outbox::FileDescriptor;
using outbox::kafka::ClientCertificateProbe;

namespace {

// A TLS listener on the loopback that requires a client certificate, as a Kafka listener with
// ssl.client.auth=required: a client without one gets the certificate_required alert.
class RefusingTlsListener {
public:
    RefusingTlsListener() : stop_(::eventfd(0, EFD_CLOEXEC)) {
        const auto pair = ca_.server("listener", {"localhost", "127.0.0.1"});
        ctx_ = SSL_CTX_new(TLS_server_method());
        if (!ctx_ || SSL_CTX_use_certificate_chain_file(ctx_, pair.certificate.c_str()) != 1 ||
            SSL_CTX_use_PrivateKey_file(ctx_, pair.key.c_str(), SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_load_verify_locations(ctx_, ca_.certificate().c_str(), nullptr) != 1)
            throw std::runtime_error("test listener: cannot set up TLS");
        SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
        socket_ = FileDescriptor(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(socket_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(socket_.get(), 8) != 0 ||
            ::getsockname(socket_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
            throw std::runtime_error("test listener: cannot listen");
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~RefusingTlsListener() {
        const std::uint64_t one = 1;
        (void)!::write(stop_.get(), &one, sizeof one);
        thread_.join();
        SSL_CTX_free(ctx_);
    }

    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

private:
    void serve() {
        for (;;) {
            pollfd entries[2] = {{socket_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
            if (::poll(entries, 2, -1) < 0 || entries[1].revents) return;
            const FileDescriptor client(::accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC));
            if (!client.valid()) continue;
            SSL* ssl = SSL_new(ctx_);
            SSL_set_fd(ssl, client.get());
            SSL_accept(ssl);  // fails, sending the alert
            SSL_free(ssl);
            // Open until the client has read the alert and closed (5 s at most): closing first
            // would answer the client's request with a reset, which can discard the alert.
            const timeval limit{5, 0};
            setsockopt(client.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
            char ignored[512];
            while (::recv(client.get(), ignored, sizeof ignored, 0) > 0) {
            }
        }
    }

    outbox::test::TestCa ca_;
    SSL_CTX* ctx_ = nullptr;
    FileDescriptor socket_;
    FileDescriptor stop_;
    int port_ = 0;
    std::thread thread_;
};

outbox::config::KafkaSettings tls_settings(const std::string& bootstrap) {
    outbox::config::KafkaSettings kafka;
    kafka.properties.push_back({"bootstrap.servers", bootstrap, {"router.yaml", 1}});
    kafka.properties.push_back({"security.protocol", "SSL", {"router.yaml", 2}});
    return kafka;
}

// The address space this process has now plus a little: room for small allocations, none for a
// new thread's stack, so that std::thread's constructor throws std::system_error.
class NoRoomForAThread {
public:
    NoRoomForAThread() {
        getrlimit(RLIMIT_AS, &saved_);
        std::size_t pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        rlimit tight = saved_;
        tight.rlim_cur = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + (1u << 20);
        setrlimit(RLIMIT_AS, &tight);
    }
    ~NoRoomForAThread() { setrlimit(RLIMIT_AS, &saved_); }

private:
    rlimit saved_{};
};

}  // namespace

// librdkafka's error callback starts the probe: a thread that cannot start must neither throw
// through it nor leave the probe taken for running for ever. First in the program: the C library
// keeps the stacks of threads that ended for new ones, which would need no new address space.
BOOST_AUTO_TEST_CASE(a_probe_without_a_thread_throws_nothing_and_the_next_one_runs) {
    const RefusingTlsListener listener;
    ClientCertificateProbe probe(tls_settings(listener.address()), listener.address(), false);
    {
        const NoRoomForAThread limit;
        BOOST_REQUIRE_THROW(std::thread([] {}).join(), std::system_error);  // what the limit is for
        BOOST_CHECK_NO_THROW(probe.start("SSL handshake failed: Disconnected"));
    }
    probe.wait();
    BOOST_TEST(probe.take_verdict().empty());  // nothing was asked
    probe.start("SSL handshake failed: Disconnected");
    probe.wait();
    BOOST_TEST(probe.take_verdict().find("refused the client certificate") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_listener_that_requires_a_client_certificate_is_named) {
    const RefusingTlsListener listener;
    ClientCertificateProbe probe(tls_settings(listener.address()), listener.address(), false);
    probe.start("SSL handshake failed: Disconnected");
    probe.wait();
    const std::string verdict = probe.take_verdict();
    BOOST_TEST(verdict.starts_with("kafka: TLS: broker " + listener.address() + " refused the client certificate"), verdict);
    BOOST_TEST(verdict.find("set ssl.certificate.location") != std::string::npos, verdict);
}
