#include "queued_backlog.hpp"

#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <sys/ioctl.h>

#include <variant>

#include "router_process.hpp"
#include "outbox/replication/walsender_frames.hpp"

namespace outbox::test {

QueuedBacklog read_queued_backlog(replication::ReplicationStream& stream, int commits) {
    using namespace std::chrono_literals;
    BOOST_REQUIRE(wait_until([&] {
        int queued = 0;
        return ioctl(stream.socket(), FIONREAD, &queued) == 0 && queued > 64 * 1024;
    }, 10s));
    QueuedBacklog backlog;
    int commits_read = 0;
    pollfd socket{stream.socket(), POLLIN, 0};
    for (;;) {
        while (const auto frame = stream.next_frame()) {
            ++backlog.frames;
            const auto parsed = replication::parse_server_frame(*frame);
            if (const auto* data = std::get_if<replication::XLogData>(&parsed); data && !data->payload.empty()) {
                backlog.inserts += data->payload[0] == 'I';
                commits_read += data->payload[0] == 'C';
            }
        }
        if (commits_read >= commits) return backlog;
        BOOST_REQUIRE_MESSAGE(poll(&socket, 1, 10000) == 1, "no data on the socket for 10 s with "
                                                                << backlog.inserts << " inserts and " << commits_read
                                                                << " of " << commits << " commits read");
        stream.receive(true);
        ++backlog.reads;
    }
}

}  // namespace outbox::test
