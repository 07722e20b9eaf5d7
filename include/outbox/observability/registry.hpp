#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/observability/instruments.hpp"

namespace outbox::observability {

// Counters of one metric told apart by label values, e.g. events published per topic.
class CounterFamily {
public:
    explicit CounterFamily(std::vector<std::string> label_names);
    CounterFamily(const CounterFamily&) = delete;
    CounterFamily& operator=(const CounterFamily&) = delete;

    // The counter for these label values (in label-name order), created at zero on first use.
    // Takes a lock and allocates: look a counter up once (per table, per topic) and keep the
    // reference, which stays valid as long as the family. Throws std::invalid_argument when the
    // number of values does not match the label names.
    Counter& with(std::initializer_list<std::string_view> label_values);

    const std::vector<std::string>& label_names() const { return label_names_; }
    std::uint64_t total() const;

    // Every child, ordered by label values.
    void for_each(const std::function<void(const std::vector<std::string>& label_values, std::uint64_t value)>& visit) const;

private:
    std::vector<std::string> label_names_;
    mutable std::mutex mutex_;
    std::map<std::vector<std::string>, std::unique_ptr<Counter>> children_;
};

// Owns named metrics and renders them in the Prometheus text exposition format. Register
// everything before another thread renders: registration itself is not synchronised.
class Registry {
public:
    Registry();
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    // Names and label names must be valid Prometheus names and unique (std::invalid_argument).
    Counter& counter(std::string name, std::string help);
    CounterFamily& counter_family(std::string name, std::string help, std::vector<std::string> label_names);
    Gauge& gauge(std::string name, std::string help);
    // A gauge computed at scrape time, on the rendering thread.
    void gauge_function(std::string name, std::string help, std::function<std::int64_t()> read);
    // Gauges told apart by label values, all computed at scrape time on the rendering thread:
    // `read` returns each child's label values (in label-name order) and value.
    struct LabelledValue {
        std::vector<std::string> label_values;
        std::int64_t value = 0;
    };
    void gauge_family_function(std::string name, std::string help, std::vector<std::string> label_names,
                               std::function<std::vector<LabelledValue>()> read);
    Histogram& histogram(std::string name, std::string help, std::vector<double> upper_bounds);

    // Text format 0.0.4, metrics in registration order.
    std::string render() const;

    struct Metric;  // one registered metric; defined in registry.cpp

private:
    Metric& add(std::unique_ptr<Metric> metric);

    std::vector<std::unique_ptr<Metric>> metrics_;
};

}  // namespace outbox::observability
