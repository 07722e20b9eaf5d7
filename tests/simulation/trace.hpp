#pragma once

#include <cstdint>
#include <deque>
#include <iostream>
#include <string>

namespace outbox::simulation {

// The steps that matter (faults, connections, losses, replacements, crashes, stops), newest
// last, kept to a bounded tail for the failure report.
class Trace {
public:
    void at(std::int64_t now_ms, const std::string& what) {
        lines_.push_back(std::to_string(now_ms) + " ms  " + what);
        if (lines_.size() > kKept) lines_.pop_front();
        if (echo) std::cerr << lines_.back() << '\n';
    }
    void print(std::ostream& out, std::size_t last) const {
        const std::size_t from = lines_.size() > last ? lines_.size() - last : 0;
        if (from > 0) out << "  ... " << from << " earlier steps\n";
        for (std::size_t i = from; i < lines_.size(); ++i) out << "  " << lines_[i] << '\n';
    }
    bool echo = false;

private:
    static constexpr std::size_t kKept = 400;
    std::deque<std::string> lines_;
};

}  // namespace outbox::simulation
