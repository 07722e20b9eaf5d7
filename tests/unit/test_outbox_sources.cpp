#define BOOST_TEST_MODULE outbox_sources
#include <boost/test/unit_test.hpp>

#include "outbox/pipeline/outbox_sources.hpp"

using outbox::pipeline::OutboxSources;

BOOST_AUTO_TEST_CASE(a_source_keeps_its_id_and_tables_and_prefixes_of_one_name_differ) {
    outbox::observability::Metrics metrics;
    OutboxSources sources(metrics);
    const auto table = sources.id(OutboxSources::Kind::table, "public.outbox");
    const auto prefix = sources.id(OutboxSources::Kind::message_prefix, "public.outbox");
    BOOST_TEST(table != prefix);
    BOOST_TEST(sources.id(OutboxSources::Kind::table, "public.outbox") == table);
    BOOST_TEST(sources[table].description == "public.outbox");
    BOOST_TEST(sources[prefix].description == "message prefix public.outbox");
    BOOST_TEST(sources[table].label == "public.outbox");
    BOOST_TEST(sources[prefix].label == "message:public.outbox");
}

BOOST_AUTO_TEST_CASE(each_source_counts_under_its_own_label) {
    outbox::observability::Metrics metrics;
    OutboxSources sources(metrics);
    const auto orders = sources.id(OutboxSources::Kind::table, "sales.outbox");
    const auto messages = sources.id(OutboxSources::Kind::message_prefix, "outbox");
    sources[orders].received->add();
    sources[orders].received->add();
    sources[messages].skipped_invalid->add();
    BOOST_TEST(metrics.events_received.with({"sales.outbox"}).value() == 2u);
    BOOST_TEST(metrics.events_skipped.with({"message:outbox", "invalid"}).value() == 1u);
    BOOST_TEST(metrics.events_received.with({"message:outbox"}).value() == 0u);
}
