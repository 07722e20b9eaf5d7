#define BOOST_TEST_MODULE replication_stream
#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <regex>
#include <variant>

#include "error_of.hpp"
#include "harness.hpp"
#include "outbox_source.hpp"
#include "queued_backlog.hpp"
#include "tcp_proxy.hpp"
#include "outbox/replication/replication_stream.hpp"
#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// The replication stream on its own, against a real walsender: no pipeline involved. Every case
// runs twice: on a plain connection and over TLS. Both go around libpq (BackendSocket), over TLS
// through OpenSSL on the router's own reads (TlsTransport), and must behave the same.

namespace {

const char* const kSslModes[] = {"disable", "require"};

std::unique_ptr<replication::ReplicationStream> open_stream(const std::string& db, const std::string& slot,
                                                            const std::string& sslmode) {
    replication::PgConnection connection(postgres().bare_conninfo(db) + " sslmode=" + sslmode,
                                         replication::PgConnection::Mode::logical_replication);
    const int server_version = connection.server_version();
    auto stream = std::make_unique<replication::ReplicationStream>(std::move(connection));
    stream->start(slot, db, server_version);
    return stream;
}

bool reports_closed(const replication::ReplicationStream& stream) {
    try {
        stream.check_connected();
        return false;
    } catch (const TransientError&) {
        return true;
    }
}

// Reads frames until `done` says so (given each pgoutput message) or the stream ends with the
// error it throws; waits at most 10 s for data.
void read_stream(replication::ReplicationStream& stream, const std::function<bool(std::span<const char>)>& done) {
    pollfd socket{stream.socket(), POLLIN, 0};
    for (;;) {
        while (const auto frame = stream.next_frame()) {
            const auto parsed = replication::parse_server_frame(*frame);
            if (const auto* data = std::get_if<replication::XLogData>(&parsed); data && done(data->payload)) return;
        }
        BOOST_REQUIRE_MESSAGE(poll(&socket, 1, 10000) == 1, "no data from the walsender for 10 s");
        stream.receive(false);
    }
}

std::string without_pids(const std::string& text) { return std::regex_replace(text, std::regex("PID [0-9]+"), "PID n"); }

}  // namespace

// The exactly-once commit asks whether this process still holds the slot. With a backlog queued
// on the socket, reading would return that backlog and reach the close only after it.
BOOST_AUTO_TEST_CASE(a_close_is_seen_behind_unread_data_and_the_data_stays_readable) {
    for (const std::string sslmode : kSslModes) {
        BOOST_TEST_CONTEXT("sslmode=" << sslmode) {
            const auto source = outbox_source("stream");
            auto stream = open_stream(source.db, source.db, sslmode);
            BOOST_TEST(!reports_closed(*stream));

            constexpr int kRows = 10;
            source.sql->exec(outbox_rows_sql(0, kRows, 3));
            // The transaction's messages (over 100 bytes per row) queued on the socket, unread.
            BOOST_REQUIRE(wait_until([&] {
                int queued = 0;
                return ioctl(stream->socket(), FIONREAD, &queued) == 0 && queued > 100 * kRows;
            }, 10s));
            BOOST_TEST(!reports_closed(*stream));  // data waiting is not a close

            source.sql->exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" +
                             source.db + "'");
            BOOST_TEST(wait_until([&] { return reports_closed(*stream); }, 10s));

            // The check read nothing: every row sent before the close is still there.
            int inserts = 0;
            const auto ended = error_of<TransientError>([&] {
                read_stream(*stream, [&](std::span<const char> message) {
                    if (!message.empty() && message[0] == 'I') ++inserts;
                    return false;
                });
            });
            BOOST_TEST_MESSAGE("stream ended: " << ended);
            BOOST_TEST(ended.find("terminating connection due to administrator command") != std::string::npos);
            BOOST_TEST(inserts == kRows);
        }
    }
}

// Messages larger than the 16 KiB read buffer, many small ones, and which path each connection
// took (the walsender's own view of TLS).
BOOST_AUTO_TEST_CASE(every_message_arrives_whole_whatever_its_size) {
    for (const std::string sslmode : kSslModes) {
        BOOST_TEST_CONTEXT("sslmode=" << sslmode) {
            const auto source = outbox_source("sizes");
            auto stream = open_stream(source.db, source.db, sslmode);
            BOOST_TEST(source.sql->scalar("SELECT ssl FROM pg_stat_ssl JOIN pg_replication_slots ON pid = active_pid "
                                          "WHERE slot_name = '" + source.db + "'") ==
                       (sslmode == "require" ? "t" : "f"));

            constexpr int kLarge = 300000;
            source.sql->exec(outbox_rows_sql(0, 500, 7));
            source.sql->exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES "
                             "(gen_random_uuid(), 'Order', 'big', 'Created', jsonb_build_object('text', repeat('x', " +
                             std::to_string(kLarge) + ")))");
            source.sql->exec(outbox_rows_sql(500, 1, 7));
            int inserts = 0;
            std::size_t largest = 0;
            read_stream(*stream, [&](std::span<const char> message) {
                if (message.empty() || message[0] != 'I') return false;
                largest = std::max(largest, message.size());
                return ++inserts == 502;
            });
            BOOST_TEST(inserts == 502);
            BOOST_TEST(largest > static_cast<std::size_t>(kLarge));
            BOOST_TEST(largest < static_cast<std::size_t>(kLarge) + 1000);
        }
    }
}

// The server's answer to START_REPLICATION, as exec() words it for every other statement.
BOOST_AUTO_TEST_CASE(a_refused_start_names_the_slot_and_the_servers_reason) {
    std::vector<std::string> missing, busy;
    for (const std::string sslmode : kSslModes) {
        BOOST_TEST_CONTEXT("sslmode=" << sslmode) {
            const auto source = outbox_source("refused");
            missing.push_back(error_of<DefiniteError>([&] { open_stream(source.db, "no_such_slot", sslmode); }));
            BOOST_TEST(missing.back().find("START_REPLICATION on slot no_such_slot failed") != std::string::npos,
                       missing.back());
            BOOST_TEST(missing.back().find("replication slot \"no_such_slot\" does not exist") != std::string::npos,
                       missing.back());

            // Another process streams from the slot: retried, not fatal.
            auto holder = open_stream(source.db, source.db, "disable");
            busy.push_back(without_pids(error_of<TransientError>([&] { open_stream(source.db, source.db, sslmode); })));
            BOOST_TEST(busy.back().find("is active for PID") != std::string::npos, busy.back());
        }
    }
    const std::regex database_names("refused_[0-9]+");
    BOOST_TEST(missing[0] == missing[1]);
    BOOST_TEST(std::regex_replace(busy[0], database_names, "db") == std::regex_replace(busy[1], database_names, "db"));
}

// A path that stops carrying anything (a stalled proxy still acknowledges TCP) while start()
// awaits an answer: given up after the answer limit, the wait reported meanwhile, since the
// server, asked through the same path, cannot say it is working on the statement either. The
// proxy stalls at START_REPLICATION itself, whose answer is read around libpq; before it the
// SETs, through libpq, are answered.
BOOST_AUTO_TEST_CASE(a_start_replication_that_gets_no_answer_is_given_up_after_the_limit) {
    const auto source = outbox_source("unanswered");
    TcpProxy proxy(postgres().port());
    std::string conninfo = postgres().plain_conninfo(source.db);
    const std::string direct_port = "port=" + std::to_string(postgres().port());
    conninfo.replace(conninfo.find(direct_port), direct_port.size(), "port=" + std::to_string(proxy.port()));
    replication::PgConnection connection(conninfo, replication::PgConnection::Mode::logical_replication,
                                         [](int socket, bool for_write) {
                                             pollfd ready{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
                                             return poll(&ready, 1, -1) >= 0;
                                         });
    std::vector<std::string> waited_for;
    connection.bound_answers({2s, [&](std::string_view what, std::chrono::milliseconds) {
                                  waited_for.emplace_back(what);
                                  return true;
                              }});
    const int server_version = connection.server_version();
    replication::ReplicationStream stream(std::move(connection));
    proxy.stall_at("START_REPLICATION");
    const auto error = error_of<TransientError>([&] { stream.start(source.db, source.db, server_version); });
    proxy.resume();
    BOOST_TEST(error.starts_with("postgres: no answer to START_REPLICATION on slot " + source.db + " within "), error);
    BOOST_TEST(contains(error, "the server does not say it is working on it"), error);
    // A report a second, the limit being 2 s.
    BOOST_TEST(std::count(waited_for.begin(), waited_for.end(), "START_REPLICATION on slot " + source.db) >= 2);
}

// An error the walsender raises while streaming ends the stream for good, with its cause.
BOOST_AUTO_TEST_CASE(a_server_error_mid_stream_is_definite_and_names_the_cause) {
    for (const std::string sslmode : kSslModes) {
        BOOST_TEST_CONTEXT("sslmode=" << sslmode) {
            const auto source = outbox_source("dropped");
            auto stream = open_stream(source.db, source.db, sslmode);
            source.sql->exec("DROP PUBLICATION " + source.db);
            source.sql->exec(outbox_rows_sql(0, 1, 1));
            const auto error = error_of<DefiniteError>([&] { read_stream(*stream, [](auto) { return false; }); });
            BOOST_TEST(error.find("replication stream ended with an error: ERROR:  publication \"" + source.db +
                                  "\" does not exist") != std::string::npos,
                       error);
        }
    }
}

// A backlog already queued on the socket is taken in reads of many messages, over TLS as over
// plain TCP (the walsender sends every message as a TLS record of its own), and to its end without
// more data from the server: records that arrived whole but did not fit the read buffer are
// announced by no socket readiness, and a read that left the backlog's last messages in OpenSSL
// would wait for the walsender's next keepalive. Small messages, messages of several records,
// and messages larger than the buffer.
BOOST_AUTO_TEST_CASE(a_queued_backlog_is_read_many_messages_at_a_time_and_to_its_end_over_tls_as_over_plain_tcp) {
    struct Shape {
        int rows;
        int pad_bytes;
    };
    for (const std::string sslmode : kSslModes) {
        for (const Shape shape : {Shape{2000, 0}, Shape{300, 3000}, Shape{40, 40000}}) {
            BOOST_TEST_CONTEXT("sslmode=" << sslmode << ", " << shape.rows << " rows of " << shape.pad_bytes
                                          << " bytes of padding") {
                const auto source = outbox_source("batches");
                auto stream = open_stream(source.db, source.db, sslmode);
                // Several transactions, so that the backlog ends with a commit after a full read.
                for (int i = 0; i < 4; ++i) source.sql->exec(padded_rows_sql(shape.rows / 4, shape.pad_bytes));
                const auto backlog = read_queued_backlog(*stream, 4);
                BOOST_TEST_MESSAGE(backlog.frames << " frames in " << backlog.reads << " reads");
                BOOST_TEST(backlog.inserts == shape.rows);
                // A full read is 16 KiB; an insert's frame is a little over 150 bytes here.
                if (shape.pad_bytes == 0)
                    BOOST_TEST(backlog.frames >= 20 * backlog.reads, backlog.frames << " frames in " << backlog.reads << " reads");
            }
        }
    }
}
