#pragma once

// Walsender frames and pgoutput messages as PostgreSQL writes them (protocol 1, MESSAGE from 14),
// for the simulated walsender: the router's own decoder and frame parser read them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/util/lsn.hpp"

namespace outbox::simulation {

class WireWriter {
public:
    WireWriter& u8(std::uint8_t v) {
        data_.push_back(static_cast<char>(v));
        return *this;
    }
    WireWriter& i16(std::int16_t v) { return be(static_cast<std::uint16_t>(v), 2); }
    WireWriter& i32(std::int32_t v) { return be(static_cast<std::uint32_t>(v), 4); }
    WireWriter& i64(std::int64_t v) { return be(static_cast<std::uint64_t>(v), 8); }
    WireWriter& str(std::string_view s) {
        data_.append(s);
        data_.push_back('\0');
        return *this;
    }
    WireWriter& raw(std::string_view s) {
        data_.append(s);
        return *this;
    }
    std::string take() { return std::move(data_); }

private:
    WireWriter& be(std::uint64_t v, int width) {
        for (int shift = 8 * (width - 1); shift >= 0; shift -= 8) data_.push_back(static_cast<char>(v >> shift));
        return *this;
    }
    std::string data_;
};

inline std::string xlog_data(Lsn start, Lsn end, std::int64_t send_time_us, const std::string& payload) {
    return WireWriter().u8('w').i64(static_cast<std::int64_t>(start)).i64(static_cast<std::int64_t>(end)).i64(send_time_us).raw(payload).take();
}

inline std::string keepalive(Lsn wal_end, std::int64_t send_time_us, bool reply) {
    return WireWriter().u8('k').i64(static_cast<std::int64_t>(wal_end)).i64(send_time_us).u8(reply ? 1 : 0).take();
}

inline std::string begin_message(Lsn final_lsn, std::int64_t commit_time_us, std::uint32_t xid) {
    return WireWriter().u8('B').i64(static_cast<std::int64_t>(final_lsn)).i64(commit_time_us).i32(static_cast<std::int32_t>(xid)).take();
}

inline std::string commit_message(Lsn commit_lsn, Lsn end_lsn, std::int64_t commit_time_us) {
    return WireWriter().u8('C').u8(0).i64(static_cast<std::int64_t>(commit_lsn)).i64(static_cast<std::int64_t>(end_lsn)).i64(commit_time_us).take();
}

struct WireColumn {
    std::string name;
    std::uint32_t type_oid;
};

inline std::string relation_message(std::uint32_t relid, std::string_view schema, std::string_view table,
                                    const std::vector<WireColumn>& columns) {
    WireWriter w;
    w.u8('R').i32(static_cast<std::int32_t>(relid)).str(schema).str(table).u8('d').i16(static_cast<std::int16_t>(columns.size()));
    for (const auto& c : columns) w.u8(0).str(c.name).i32(static_cast<std::int32_t>(c.type_oid)).i32(-1);
    return w.take();
}

inline std::string insert_message(std::uint32_t relid, const std::vector<std::optional<std::string>>& values) {
    WireWriter w;
    w.u8('I').i32(static_cast<std::int32_t>(relid)).u8('N').i16(static_cast<std::int16_t>(values.size()));
    for (const auto& v : values) {
        if (!v) {
            w.u8('n');
            continue;
        }
        w.u8('t').i32(static_cast<std::int32_t>(v->size())).raw(*v);
    }
    return w.take();
}

inline std::string logical_message(bool transactional, Lsn lsn, std::string_view prefix, std::string_view content) {
    return WireWriter()
        .u8('M')
        .u8(transactional ? 1 : 0)
        .i64(static_cast<std::int64_t>(lsn))
        .str(prefix)
        .i32(static_cast<std::int32_t>(content.size()))
        .raw(content)
        .take();
}

}  // namespace outbox::simulation
