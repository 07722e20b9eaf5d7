#define BOOST_TEST_MODULE host_lookup
#include <boost/test/unit_test.hpp>

#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "outbox/kafka/host_lookup.hpp"
#include "outbox/kafka/tcp_connect.hpp"
#include "outbox/util/file_descriptor.hpp"

// A host-name lookup that never answers (a dead DNS server, a hanging NSS source) must not hold
// its caller: the client-certificate probe's caller is the producer's destruction on the loop.

using namespace outbox::kafka;
using namespace std::chrono_literals;

namespace {

// A resolver that answers only when released, as a DNS server that stopped answering.
struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool open = false;
    int entered = 0;
    int left = 0;
};

Resolver held_by(const std::shared_ptr<Gate>& gate) {
    return [gate](const char*, const char*, const addrinfo*, addrinfo**) {
        std::unique_lock lock(gate->mutex);
        ++gate->entered;
        gate->changed.notify_all();
        gate->changed.wait(lock, [&] { return gate->open; });
        ++gate->left;
        gate->changed.notify_all();
        return EAI_AGAIN;
    };
}

void release(const std::shared_ptr<Gate>& gate, int lookups) {
    std::unique_lock lock(gate->mutex);
    gate->open = true;
    gate->changed.notify_all();
    gate->changed.wait(lock, [&] { return gate->left == lookups; });
}

const BrokerAddress kBroker{"broker.example", "9093"};

}  // namespace

BOOST_AUTO_TEST_CASE(a_lookup_that_never_answers_is_given_up_at_the_deadline) {
    const auto gate = std::make_shared<Gate>();
    const HostLookup lookup = look_up_host(kBroker, std::chrono::steady_clock::now() + 200ms, -1, held_by(gate));
    BOOST_TEST(lookup.gave_up);
    BOOST_TEST(!lookup.addresses);
    {
        std::unique_lock lock(gate->mutex);
        gate->changed.wait(lock, [&] { return gate->entered == 1; });
        BOOST_TEST(gate->left == 0);  // the resolver still holds it
    }
    release(gate, 1);  // it ends by itself, with nobody waiting for it
}

BOOST_AUTO_TEST_CASE(a_cancel_ends_the_wait_for_a_lookup) {
    const auto gate = std::make_shared<Gate>();
    const outbox::FileDescriptor cancel(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    const std::uint64_t one = 1;
    BOOST_REQUIRE(::write(cancel.get(), &one, sizeof one) == static_cast<ssize_t>(sizeof one));
    // A deadline far away: only the cancel can end the wait.
    const HostLookup lookup = look_up_host(kBroker, std::chrono::steady_clock::now() + 1h, cancel.get(), held_by(gate));
    BOOST_TEST(lookup.gave_up);
    release(gate, 1);
}

BOOST_AUTO_TEST_CASE(answers_and_addresses_come_through) {
    const auto answered = look_up_host(kBroker, std::chrono::steady_clock::now() + 10s, -1,
                                       [](const char*, const char* port, const addrinfo* hints, addrinfo** result) {
                                           return ::getaddrinfo("127.0.0.1", port, hints, result);
                                       });
    BOOST_TEST(!answered.gave_up);
    BOOST_TEST(answered.error == 0);
    BOOST_TEST(static_cast<bool>(answered.addresses));
    const auto refused = look_up_host(kBroker, std::chrono::steady_clock::now() + 10s, -1,
                                      [](const char*, const char*, const addrinfo*, addrinfo**) { return EAI_NONAME; });
    BOOST_TEST(refused.error == EAI_NONAME);
    // An address needs no resolver.
    const auto numeric = look_up_host({"127.0.0.1", "1"}, std::chrono::steady_clock::now() + 10s, -1,
                                      [](const char*, const char*, const addrinfo*, addrinfo**) { return EAI_FAIL; });
    BOOST_TEST(static_cast<bool>(numeric.addresses));
    // Nothing listens on port 1 of the loopback.
    BOOST_TEST((connect_tcp({"127.0.0.1", "1"}, std::chrono::steady_clock::now() + 10s).outcome == ConnectOutcome::refused));
}

// Last: it leaves lookups behind. Each gives up after 10 ms while its resolver hangs.
BOOST_AUTO_TEST_CASE(unanswered_lookups_are_not_piled_up) {
    const auto gate = std::make_shared<Gate>();
    for (int i = 0; i < 10; ++i)
        BOOST_TEST(look_up_host(kBroker, std::chrono::steady_clock::now() + 10ms, -1, held_by(gate)).gave_up);
    std::unique_lock lock(gate->mutex);
    gate->changed.wait(lock, [&] { return gate->entered >= 1; });
    BOOST_TEST(gate->entered <= 4);  // the rest were given up without a thread
    gate->open = true;
    gate->changed.notify_all();
}
