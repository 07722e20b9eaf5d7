#include "outbox/pipeline/catalog_query.hpp"

#include <poll.h>

#include <cerrno>
#include <chrono>

#include "outbox/pipeline/shutdown_signal.hpp"
#include "outbox/replication/connection_settings.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::pipeline {
namespace {

const std::string kLockTimeout = std::to_string(kCatalogLockTimeoutMs);
const std::string kStatementTimeout = std::to_string(kCatalogStatementTimeoutMs);

// Beyond the statement timeout the server is not answering at all.
constexpr auto kAnswerLimit = std::chrono::milliseconds(kCatalogStatementTimeoutMs + 5000);

}  // namespace

replication::PgResult query_catalog(const std::string& conninfo, const std::string& application_name,
                                    const std::string& what, const std::string& select) {
    const auto deadline = std::chrono::steady_clock::now() + kAnswerLimit;
    // Every wait of this connection, connecting included: a shutdown request ends it (the pipe
    // stays readable once written), and so does the deadline; EINTR only polls again.
    const auto wait = [&](int socket, bool for_write) {
        pollfd fds[2] = {{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {ShutdownSignal::fd(), POLLIN, 0}};
        for (;;) {
            if (ShutdownSignal::requested()) return false;
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0)
                throw TransientError("postgres: " + what + ": no answer within " +
                                     std::to_string(kAnswerLimit.count()) + " ms");
            const int ready = poll(fds, 2, static_cast<int>(left.count()));
            if (ready > 0 && fds[1].revents == 0) return true;
            if (ready < 0 && errno != EINTR) return true;  // the libpq call that follows reports it
        }
    };
    const replication::PgConnection connection(replication::side_conninfo(conninfo, application_name),
                                               replication::PgConnection::Mode::sql, wait);
    // One round trip: the settings apply to the SELECT that follows them in the same query.
    return connection.exec(
        "SET lock_timeout = " + kLockTimeout + "; SET statement_timeout = " + kStatementTimeout + "; " + select, what);
}

}  // namespace outbox::pipeline
