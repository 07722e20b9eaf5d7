#include "outbox/observability/registry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace outbox::observability {
namespace {

bool valid_name(std::string_view name, bool allow_colon) {
    const auto first_ok = [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
    };
    if (name.empty() || !first_ok(name.front())) return false;
    return std::all_of(name.begin() + 1, name.end(), [&](char c) { return first_ok(c) || (c >= '0' && c <= '9'); });
}

template <typename Number>
void append_integer(std::string& out, Number value) {
    char buffer[24];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    out.append(buffer, end);
}

// The shortest text that reads back as the same double, spelled the way Prometheus does.
void append_double(std::string& out, double value) {
    if (std::isnan(value)) {
        out += "NaN";
    } else if (std::isinf(value)) {
        out += value > 0 ? "+Inf" : "-Inf";
    } else {
        char buffer[32];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        out.append(buffer, end);
    }
}

void append_escaped(std::string& out, std::string_view text, bool escape_quote) {
    for (const char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '"' && escape_quote) out += "\\\"";
        else out += c;
    }
}

// {a="x",b="y"}, or nothing when there are no labels.
void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name = {}, std::string_view extra_value = {}) {
    if (names.empty() && extra_name.empty()) return;
    out += '{';
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += ',';
        out += names[i];
        out += "=\"";
        append_escaped(out, values[i], true);
        out += '"';
    }
    if (!extra_name.empty()) {
        if (!names.empty()) out += ',';
        out.append(extra_name).append("=\"").append(extra_value).append("\"");
    }
    out += '}';
}

}  // namespace

struct Registry::Metric {
    Metric(std::string name, std::string help) : name(std::move(name)), help(std::move(help)) {}
    virtual ~Metric() = default;
    virtual const char* type() const = 0;
    virtual void append_samples(std::string& out) const = 0;

    const std::string name;
    const std::string help;
};

namespace {

// One unlabelled value: a Counter ("counter") or a Gauge ("gauge").
template <typename Value>
struct SingleValueMetric final : Registry::Metric {
    using Metric::Metric;
    const char* type() const override { return std::is_same_v<Value, Counter> ? "counter" : "gauge"; }
    void append_samples(std::string& out) const override {
        out += name + ' ';
        append_integer(out, value.value());
        out += '\n';
    }
    Value value;
};

struct CounterFamilyMetric final : Registry::Metric {
    CounterFamilyMetric(std::string name, std::string help, std::vector<std::string> label_names)
        : Metric(std::move(name), std::move(help)), family(std::move(label_names)) {}
    const char* type() const override { return "counter"; }
    void append_samples(std::string& out) const override {
        family.for_each([&](const std::vector<std::string>& values, std::uint64_t value) {
            out += name;
            append_labels(out, family.label_names(), values);
            out += ' ';
            append_integer(out, value);
            out += '\n';
        });
    }
    CounterFamily family;
};


struct GaugeFunctionMetric final : Registry::Metric {
    GaugeFunctionMetric(std::string name, std::string help, std::function<std::int64_t()> read)
        : Metric(std::move(name), std::move(help)), read(std::move(read)) {}
    const char* type() const override { return "gauge"; }
    void append_samples(std::string& out) const override {
        out += name + ' ';
        append_integer(out, read());
        out += '\n';
    }
    std::function<std::int64_t()> read;
};

struct GaugeFamilyFunctionMetric final : Registry::Metric {
    GaugeFamilyFunctionMetric(std::string name, std::string help, std::vector<std::string> label_names,
                              std::function<std::vector<Registry::LabelledValue>()> read)
        : Metric(std::move(name), std::move(help)), label_names(std::move(label_names)), read(std::move(read)) {}
    const char* type() const override { return "gauge"; }
    void append_samples(std::string& out) const override {
        for (const auto& child : read()) {
            if (child.label_values.size() != label_names.size()) continue;
            out += name;
            append_labels(out, label_names, child.label_values);
            out += ' ';
            append_integer(out, child.value);
            out += '\n';
        }
    }
    const std::vector<std::string> label_names;
    std::function<std::vector<Registry::LabelledValue>()> read;
};

struct HistogramMetric final : Registry::Metric {
    HistogramMetric(std::string name, std::string help, std::vector<double> bounds)
        : Metric(std::move(name), std::move(help)), histogram(std::move(bounds)) {}
    const char* type() const override { return "histogram"; }
    void append_samples(std::string& out) const override {
        const auto snapshot = histogram.snapshot();
        const auto& bounds = histogram.upper_bounds();
        for (std::size_t i = 0; i < snapshot.cumulative.size(); ++i) {
            std::string le;
            if (i < bounds.size()) append_double(le, bounds[i]);
            else le = "+Inf";
            out += name + "_bucket";
            append_labels(out, {}, {}, "le", le);
            out += ' ';
            append_integer(out, snapshot.cumulative[i]);
            out += '\n';
        }
        out += name + "_sum ";
        append_double(out, snapshot.sum);
        // The count is the +Inf bucket of the same snapshot, so the two always agree.
        out += '\n' + name + "_count ";
        append_integer(out, snapshot.cumulative.back());
        out += '\n';
    }
    Histogram histogram;
};

}  // namespace

CounterFamily::CounterFamily(std::vector<std::string> label_names) : label_names_(std::move(label_names)) {
    for (const auto& label : label_names_) {
        if (!valid_name(label, false) || label.starts_with("__"))
            throw std::invalid_argument("invalid Prometheus label name \"" + label + "\"");
    }
}

Counter& CounterFamily::with(std::initializer_list<std::string_view> label_values) {
    if (label_values.size() != label_names_.size())
        throw std::invalid_argument("expected " + std::to_string(label_names_.size()) + " label values, got " +
                                    std::to_string(label_values.size()));
    std::vector<std::string> key(label_values.begin(), label_values.end());
    const std::lock_guard lock(mutex_);
    auto& child = children_[std::move(key)];
    if (!child) child = std::make_unique<Counter>();
    return *child;
}

std::uint64_t CounterFamily::total() const {
    const std::lock_guard lock(mutex_);
    std::uint64_t sum = 0;
    for (const auto& [values, counter] : children_) sum += counter->value();
    return sum;
}

void CounterFamily::for_each(
    const std::function<void(const std::vector<std::string>&, std::uint64_t)>& visit) const {
    const std::lock_guard lock(mutex_);
    for (const auto& [values, counter] : children_) visit(values, counter->value());
}

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Metric& Registry::add(std::unique_ptr<Metric> metric) {
    if (!valid_name(metric->name, true))
        throw std::invalid_argument("invalid Prometheus metric name \"" + metric->name + "\"");
    const bool taken = std::any_of(metrics_.begin(), metrics_.end(),
                                   [&](const auto& existing) { return existing->name == metric->name; });
    if (taken) throw std::invalid_argument("metric \"" + metric->name + "\" is registered twice");
    metrics_.push_back(std::move(metric));
    return *metrics_.back();
}

Counter& Registry::counter(std::string name, std::string help) {
    return static_cast<SingleValueMetric<Counter>&>(
               add(std::make_unique<SingleValueMetric<Counter>>(std::move(name), std::move(help))))
        .value;
}

CounterFamily& Registry::counter_family(std::string name, std::string help, std::vector<std::string> label_names) {
    return static_cast<CounterFamilyMetric&>(
               add(std::make_unique<CounterFamilyMetric>(std::move(name), std::move(help), std::move(label_names))))
        .family;
}

Gauge& Registry::gauge(std::string name, std::string help) {
    return static_cast<SingleValueMetric<Gauge>&>(add(std::make_unique<SingleValueMetric<Gauge>>(std::move(name), std::move(help))))
        .value;
}

void Registry::gauge_function(std::string name, std::string help, std::function<std::int64_t()> read) {
    add(std::make_unique<GaugeFunctionMetric>(std::move(name), std::move(help), std::move(read)));
}

void Registry::gauge_family_function(std::string name, std::string help, std::vector<std::string> label_names,
                                     std::function<std::vector<LabelledValue>()> read) {
    for (const auto& label : label_names)
        if (!valid_name(label, false) || label.starts_with("__"))
            throw std::invalid_argument("invalid Prometheus label name \"" + label + "\"");
    add(std::make_unique<GaugeFamilyFunctionMetric>(std::move(name), std::move(help), std::move(label_names),
                                                    std::move(read)));
}

Histogram& Registry::histogram(std::string name, std::string help, std::vector<double> upper_bounds) {
    return static_cast<HistogramMetric&>(
               add(std::make_unique<HistogramMetric>(std::move(name), std::move(help), std::move(upper_bounds))))
        .histogram;
}

std::string Registry::render() const {
    std::string out;
    for (const auto& metric : metrics_) {
        out += "# HELP " + metric->name + ' ';
        append_escaped(out, metric->help, false);
        out += "\n# TYPE " + metric->name + ' ' + metric->type() + '\n';
        metric->append_samples(out);
    }
    return out;
}

}  // namespace outbox::observability
