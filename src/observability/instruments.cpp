#include "outbox/observability/instruments.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace outbox::observability {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), buckets_(bounds_.size() + 1) {
    for (std::size_t i = 0; i < bounds_.size(); ++i) {
        if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1]))
            throw std::invalid_argument("histogram bounds must be finite and strictly ascending");
    }
}

void Histogram::observe(double value) noexcept {
    if (std::isnan(value)) return;
    // Prometheus buckets are inclusive: "le" means less than or equal.
    const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
    buckets_[static_cast<std::size_t>(bucket)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
    Snapshot snapshot;
    snapshot.cumulative.reserve(buckets_.size());
    std::uint64_t running = 0;
    for (const auto& bucket : buckets_) {
        running += bucket.load(std::memory_order_relaxed);
        snapshot.cumulative.push_back(running);
    }
    snapshot.sum = sum_.load(std::memory_order_relaxed);
    return snapshot;
}

}  // namespace outbox::observability
