#pragma once

// Fixtures shared by the router's unit tests (test_routing.cpp, test_router_*.cpp).

#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/router/event_router.hpp"
#include "outbox/router/outbox_table.hpp"
#include "outbox/router/outbox_router.hpp"

#include <boost/test/unit_test.hpp>
#include <stdexcept>

namespace outbox::router::test {

// Runs `f`, which must throw InvalidRowError, and returns the error for its message to be checked.
template <typename F>
InvalidRowError invalid_row(F&& f) {
    try {
        f();
    } catch (const InvalidRowError& e) {
        return e;
    }
    BOOST_FAIL("expected InvalidRowError");
    throw std::logic_error("unreachable");
}

inline pgoutput::ColumnValue text(std::string_view v) { return {pgoutput::ValueKind::text, v}; }
inline pgoutput::ColumnValue null() { return {pgoutput::ValueKind::null, {}}; }

// Debezium's sample outbox table: id uuid, aggregatetype text, aggregateid text, type text, payload jsonb.
inline std::vector<pgoutput::RelationColumn> debezium_columns() {
    return {{0, "id", pg_oid::kUuid, -1},
            {0, "aggregatetype", pg_oid::kText, -1},
            {0, "aggregateid", pg_oid::kText, -1},
            {0, "type", pg_oid::kText, -1},
            {0, "payload", pg_oid::kJsonb, -1}};
}

// One outbox table (public.outbox) with given columns and settings, bound and ready to route.
class TableFixture {
public:
    explicit TableFixture(std::vector<pgoutput::RelationColumn> columns = debezium_columns(),
                          config::OutboxSettings settings = {}, config::RecordFormat format = {})
        : columns_(std::move(columns)),
          settings_(std::move(settings)),
          format_(std::move(format)),
          router_(settings_, format_, "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
          table_(bind_outbox_table({"public", "outbox"}, relation(), settings_)) {}

    pgoutput::Relation relation() const { return {16384, "public", "outbox", 'd', columns_}; }

    // The record views point into the fixture and `row`'s texts: use before the next call.
    OutboxRecord route(std::vector<pgoutput::ColumnValue> row,
                       TransactionContext txn = {0x16B3748, 1'700'000'000'123, 7}) {
        row_ = std::move(row);
        return router_.route(table_, row_, txn);
    }

private:
    std::vector<pgoutput::RelationColumn> columns_;
    config::OutboxSettings settings_;
    config::RecordFormat format_;
    EventRouter router_;
    OutboxTable table_;
    std::vector<pgoutput::ColumnValue> row_;
};

// Collects what the process writes to stderr (where the log goes) while it lives.
class StderrCapture {
public:
    StderrCapture() : file_(std::tmpfile()), saved_(dup(STDERR_FILENO)) {
        std::fflush(stderr);
        dup2(fileno(file_), STDERR_FILENO);
    }
    ~StderrCapture() {
        std::fflush(stderr);
        dup2(saved_, STDERR_FILENO);
        close(saved_);
        std::fclose(file_);
    }
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    std::string text() const {
        std::fflush(stderr);
        std::string out;
        std::rewind(file_);
        char buffer[4096];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0) out.append(buffer, n);
        return out;
    }

private:
    std::FILE* file_;
    int saved_;
};

inline bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace outbox::router::test
