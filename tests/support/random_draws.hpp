#pragma once

#include <cstdlib>
#include <random>
#include <vector>

namespace outbox::test {

// The draws the generators share: a seeded engine, bounds inclusive.
using Rng = std::mt19937_64;

inline int uniform(Rng& rng, int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); }
inline bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& items) {
    return items[static_cast<std::size_t>(uniform(rng, 0, static_cast<int>(items.size()) - 1))];
}

// A budget from the environment (make parity-fuzz raises them), or its default.
inline int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value && *value ? std::atoi(value) : fallback;
}

}  // namespace outbox::test
