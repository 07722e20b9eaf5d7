#define BOOST_TEST_MODULE replication_stream
#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <sys/ioctl.h>

#include <variant>

#include "harness.hpp"
#include "outbox/replication/replication_stream.hpp"
#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// The replication stream on its own, against a real walsender: no pipeline involved.

namespace {

bool reports_closed(const replication::ReplicationStream& stream) {
    try {
        stream.check_connected();
        return false;
    } catch (const TransientError&) {
        return true;
    }
}

}  // namespace

// The exactly-once commit asks whether this process still holds the slot. With a backlog queued
// on the socket, reading would return that backlog and reach the close only after it.
BOOST_AUTO_TEST_CASE(a_close_is_seen_behind_unread_data_and_the_data_stays_readable) {
    const auto db = create_outbox_database("stream");
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");
    sql.exec("SELECT pg_create_logical_replication_slot('" + db + "', 'pgoutput')");
    replication::PgConnection connection(postgres().conninfo(db), replication::PgConnection::Mode::logical_replication);
    const int server_version = connection.server_version();
    replication::ReplicationStream stream(std::move(connection));
    stream.start(db, db, server_version);
    BOOST_TEST(!reports_closed(stream));

    constexpr int kRows = 10;
    sql.exec(outbox_rows_sql(0, kRows, 3));
    // The transaction's messages (over 100 bytes per row) queued on the socket, unread.
    BOOST_REQUIRE(wait_until([&] {
        int queued = 0;
        return ioctl(stream.socket(), FIONREAD, &queued) == 0 && queued > 100 * kRows;
    }, 10s));
    BOOST_TEST(!reports_closed(stream));  // data waiting is not a close

    sql.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + db + "'");
    BOOST_TEST(wait_until([&] { return reports_closed(stream); }, 10s));

    // The check read nothing: every row sent before the close is still there.
    pollfd socket{stream.socket(), POLLIN, 0};
    int inserts = 0;
    bool ended = false;
    try {
        for (;;) {
            stream.receive(false);
            while (const auto frame = stream.next_frame()) {
                const auto parsed = replication::parse_server_frame(*frame);
                if (const auto* data = std::get_if<replication::XLogData>(&parsed); data && !data->payload.empty() &&
                                                                                   data->payload[0] == 'I')
                    ++inserts;
            }
            poll(&socket, 1, 1000);
        }
    } catch (const TransientError& e) {
        ended = true;
        BOOST_TEST_MESSAGE("stream ended: " << e.what());
    }
    BOOST_TEST(ended);
    BOOST_TEST(inserts == kRows);
}
