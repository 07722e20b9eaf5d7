#include "delivery_tally.hpp"

#include <map>
#include <string>

#include "harness.hpp"

namespace outbox::test {

DeliveryTally tally_deliveries(const std::vector<ConsumedRecord>& records, int expected) {
    DeliveryTally tally;
    tally.records = records.size();
    std::vector<int> times(static_cast<std::size_t>(expected), 0);
    std::map<std::string, int> last_of_key;
    for (const auto& r : records) {
        const int seq = seq_of(r);
        if (seq < 0 || seq >= expected) {
            ++tally.unexpected;
            continue;
        }
        if (times[seq]++ > 0) {
            ++tally.duplicates;
            continue;
        }
        auto [last, fresh] = last_of_key.emplace(r.key.value_or(""), seq);
        if (!fresh) {
            if (seq < last->second) tally.order_kept = false;
            last->second = seq;
        }
    }
    for (const int n : times) tally.missing += n == 0 ? 1 : 0;
    return tally;
}

std::ostream& operator<<(std::ostream& out, const DeliveryTally& tally) {
    return out << tally.records << " records, " << tally.duplicates << " duplicates, " << tally.missing
               << " missing, " << tally.unexpected << " unexpected, per-key order "
               << (tally.order_kept ? "kept" : "BROKEN");
}

}  // namespace outbox::test
