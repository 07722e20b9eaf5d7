// outbox-bench-decode: the router's per-frame parsing cost in isolation: walsender frame
// (parse_server_frame) + pgoutput message (Decoder::decode), on synthetic frames shaped like the
// benchmark's outbox rows (BEGIN, RELATION once, ROWS_PER_TXN INSERTs of Debezium's outbox columns
// with a ~300-byte jsonb payload, COMMIT).
//
//   outbox-bench-decode [--rows-per-txn 1000] [--txns 200] [--rounds 20]
//
// Each frame is first copied into a fresh malloc'ed buffer, as libpq's PQgetCopyData() does in the
// router (so the bytes are in cache, as they are there); the copy is part of the time.
// Prints nanoseconds per frame (best round). For the parser's instructions per frame, run it under
// valgrind --tool=callgrind --toggle-collect='outbox::pgoutput::Decoder::decode*'
//   --toggle-collect='outbox::replication::parse_server_frame*' ... --rounds 1
// and divide the total by the frames it reports.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include "bench_util.hpp"
#include "outbox/pgoutput/decoder.hpp"
#include "outbox/replication/walsender_frames.hpp"

using namespace outbox;
using namespace outbox::bench;

namespace {

class Frame {
public:
    explicit Frame(Lsn lsn) {
        data_.push_back('w');
        be(lsn, 8).be(lsn, 8).be(0x2A0000000, 8);
    }
    Frame& ch(char c) {
        data_.push_back(c);
        return *this;
    }
    Frame& be(std::uint64_t v, int width) {
        for (int shift = 8 * (width - 1); shift >= 0; shift -= 8) data_.push_back(static_cast<char>(v >> shift));
        return *this;
    }
    Frame& str(const std::string& s) {
        data_.insert(data_.end(), s.begin(), s.end());
        data_.push_back('\0');
        return *this;
    }
    Frame& text(const std::string& s) {
        ch('t').be(s.size(), 4);
        data_.insert(data_.end(), s.begin(), s.end());
        return *this;
    }
    std::vector<char> take() { return std::move(data_); }

private:
    std::vector<char> data_;
};

std::vector<std::vector<char>> make_frames(int txns, int rows_per_txn) {
    std::vector<std::vector<char>> frames;
    const std::string note(200, 'x');
    Lsn lsn = 0x1000000;
    std::uint64_t seq = 0;
    for (int t = 0; t < txns; ++t) {
        frames.push_back(Frame(0).ch('B').be(lsn + 100000, 8).be(700000000000000 + t, 8).be(1000 + t, 4).take());
        if (t == 0) {
            Frame relation(0);
            relation.ch('R').be(16384, 4).str("public").str("outbox").ch('d').be(6, 2);
            const std::pair<const char*, std::uint32_t> columns[] = {{"id", 2950},          {"aggregatetype", 25},
                                                                     {"aggregateid", 25},  {"type", 25},
                                                                     {"payload", 3802},    {"created_at", 1184}};
            for (const auto& [name, oid] : columns) relation.ch(1).str(name).be(oid, 4).be(0xFFFFFFFF, 4);
            frames.push_back(relation.take());
        }
        for (int r = 0; r < rows_per_txn; ++r, ++seq) {
            char id[40];
            std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012llx", static_cast<unsigned long long>(seq));
            const std::string payload = "{\"seq\": " + std::to_string(seq) + ", \"note\": \"" + note +
                                        "\", \"tags\": [\"a\", \"b\", \"c\"], \"amount\": " + std::to_string(seq * 1.5) +
                                        ", \"customer\": \"customer-" + std::to_string(seq % 1000) + "\"}";
            frames.push_back(Frame(0)
                                 .ch('I')
                                 .be(16384, 4)
                                 .ch('N')
                                 .be(6, 2)
                                 .text(id)
                                 .text("Aggregate" + std::to_string(seq % 10))
                                 .text("agg-" + std::to_string(seq % 1000))
                                 .text("Created")
                                 .text(payload)
                                 .text("2026-11-22 14:43:49.123456+00")
                                 .take());
        }
        frames.push_back(
            Frame(lsn + 100100).ch('C').ch(0).be(lsn + 100000, 8).be(lsn + 100100, 8).be(700000000000000 + t, 8).take());
        lsn += 200000;
    }
    return frames;
}

}  // namespace

int main(int argc, char** argv) try {
    const Args args(argc, argv);
    const int rows_per_txn = static_cast<int>(args.number("rows-per-txn", 1000));
    const int txns = static_cast<int>(args.number("txns", 200000 / rows_per_txn));
    const int rounds = static_cast<int>(args.number("rounds", 20));
    const auto frames = make_frames(txns, rows_per_txn);
    pgoutput::Decoder decoder;
    std::size_t checksum = 0;
    double best_ns = 1e30;
    for (int round = 0; round < rounds; ++round) {
        const std::int64_t start = mono_us();
        for (const auto& stored : frames) {
            // As in the router: libpq's PQgetCopyData() hands over each frame in a fresh malloc'ed
            // copy, so the bytes are in cache when they are parsed. (The copy is timed too.)
            char* copy = static_cast<char*>(std::malloc(stored.size()));
            std::memcpy(copy, stored.data(), stored.size());
            const std::span<const char> bytes(copy, stored.size());
            const auto frame = replication::parse_server_frame(bytes);
            const auto& data = std::get<replication::XLogData>(frame);
            const auto message = decoder.decode(data.payload, data.data_start);
            if (const auto* insert = std::get_if<pgoutput::Insert>(&message))
                checksum += insert->new_tuple.size() + insert->new_tuple[4].data.size();
            else
                checksum += message.index();
            std::free(copy);
        }
        best_ns = std::min(best_ns, 1e3 * static_cast<double>(mono_us() - start) / static_cast<double>(frames.size()));
    }
    std::printf("frames=%zu rows_per_txn=%d rounds=%d best=%.1f ns/frame (checksum %zu)\n", frames.size(), rows_per_txn,
                rounds, best_ns, checksum);
    return 0;
} catch (const std::exception& e) {
    std::cerr << "outbox-bench-decode: " << e.what() << "\n";
    return 1;
}
