#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

#include "kafka_reader.hpp"

namespace outbox::test {

// How the records of a topic deliver events 0..expected-1 (by payload seq, see outbox_rows_sql):
// every record counts, so a duplicate shows even when each id is present.
struct DeliveryTally {
    std::size_t records = 0;
    std::size_t duplicates = 0;  // records beyond the first of their seq
    std::size_t missing = 0;     // seqs below `expected` with no record
    std::size_t unexpected = 0;  // seqs outside 0..expected-1
    bool order_kept = true;      // per key, each first delivery has a higher seq than the one before
};

DeliveryTally tally_deliveries(const std::vector<ConsumedRecord>& records, int expected);
std::ostream& operator<<(std::ostream& out, const DeliveryTally& tally);

}  // namespace outbox::test
