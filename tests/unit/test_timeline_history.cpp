#define BOOST_TEST_MODULE timeline_history
#include <boost/test/unit_test.hpp>

#include "outbox/replication/timeline_history.hpp"
#include "outbox/util/errors.hpp"

using outbox::replication::timeline_switch_point;

// As PostgreSQL writes 00000003.history: one line per ancestor timeline.
constexpr const char* kHistory =
    "1\t0/3000158\tno recovery target specified\n"
    "\n"
    "2\t0/5A00000\tat restore point \"before upgrade\"\n";

BOOST_AUTO_TEST_CASE(each_ancestor_ends_at_its_switch_point) {
    BOOST_TEST(timeline_switch_point(kHistory, 1).value() == 0x3000158u);
    BOOST_TEST(timeline_switch_point(kHistory, 2).value() == 0x5A00000u);
}

BOOST_AUTO_TEST_CASE(a_timeline_that_is_not_an_ancestor_has_no_switch_point) {
    BOOST_TEST(!timeline_switch_point(kHistory, 3).has_value());
    BOOST_TEST(!timeline_switch_point("", 1).has_value());
    BOOST_TEST(!timeline_switch_point("# comment only\n", 1).has_value());
}

BOOST_AUTO_TEST_CASE(unreadable_lines_are_protocol_errors) {
    BOOST_CHECK_THROW(timeline_switch_point("1\n", 1), outbox::ProtocolError);
    BOOST_CHECK_THROW(timeline_switch_point("x\t0/1\treason\n", 1), outbox::ProtocolError);
    BOOST_CHECK_THROW(timeline_switch_point("1\tnot-an-lsn\treason\n", 1), outbox::ProtocolError);
}
