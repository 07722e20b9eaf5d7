#include "outbox/kafka/host_lookup.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "outbox/kafka/socket_wait.hpp"
#include "outbox/util/file_descriptor.hpp"

namespace outbox::kafka {
namespace {

// Lookups whose thread still runs; past the limit no more are started, so that a resolver that
// never answers cannot gather a thread per attempt. An atomic int needs no destruction: a lookup
// thread may end while the process exits.
constexpr int kMaxUnanswered = 4;
std::atomic<int> unanswered{0};

// What the caller and the lookup's thread share; the last of them to let go frees it.
struct Lookup {
    Lookup() : done(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
    ~Lookup() {
        if (result) freeaddrinfo(result);
    }
    Lookup(const Lookup&) = delete;
    Lookup& operator=(const Lookup&) = delete;

    FileDescriptor done;  // readable once the answer is in
    std::mutex mutex;
    int error = 0;                // guarded by mutex
    addrinfo* result = nullptr;   // guarded by mutex; taken by the caller
};

}  // namespace

HostLookup look_up_host(const BrokerAddress& address, std::chrono::steady_clock::time_point deadline, int cancel_fd,
                        Resolver resolver) {
    HostLookup answer;
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo numeric = hints;
    numeric.ai_flags = AI_NUMERICHOST;
    addrinfo* raw = nullptr;
    if (getaddrinfo(address.host.c_str(), address.port.c_str(), &numeric, &raw) == 0) {
        answer.addresses.reset(raw);
        return answer;
    }
    auto lookup = std::make_shared<Lookup>();
    if (!lookup->done.valid()) {
        answer.error = EAI_SYSTEM;
        return answer;
    }
    if (unanswered.fetch_add(1) >= kMaxUnanswered) {
        unanswered.fetch_sub(1);
        answer.gave_up = true;
        return answer;
    }
    try {
        std::thread([lookup, host = address.host, port = address.port, hints, resolver = std::move(resolver)] {
            addrinfo* result = nullptr;
            const int error = resolver(host.c_str(), port.c_str(), &hints, &result);
            {
                const std::lock_guard lock(lookup->mutex);
                lookup->error = error;
                lookup->result = error == 0 ? result : nullptr;
            }
            const std::uint64_t one = 1;
            (void)!::write(lookup->done.get(), &one, sizeof one);
            unanswered.fetch_sub(1);
        }).detach();
    } catch (const std::system_error&) {
        // No thread to look it up on: as if the resolver did not answer.
        unanswered.fetch_sub(1);
        answer.gave_up = true;
        return answer;
    }
    if (!wait_for_socket(lookup->done.get(), POLLIN, deadline, cancel_fd)) {
        answer.gave_up = true;
        return answer;
    }
    const std::lock_guard lock(lookup->mutex);
    answer.error = lookup->error;
    answer.addresses.reset(std::exchange(lookup->result, nullptr));
    return answer;
}

}  // namespace outbox::kafka
