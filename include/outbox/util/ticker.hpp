#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace outbox {

// Runs `task` on a thread of its own every `interval` (the first time at once, or after one
// interval), until destroyed. An exception escaping the task is logged as a warning and the
// ticking goes on.
class Ticker {
public:
    enum class FirstRun { at_once, after_interval };
    Ticker(std::chrono::milliseconds interval, std::function<void()> task, FirstRun first = FirstRun::at_once);
    Ticker(const Ticker&) = delete;
    Ticker& operator=(const Ticker&) = delete;
    ~Ticker();  // interrupts the wait, then waits for a running task to return

private:
    void loop(std::stop_token stop);

    const std::chrono::milliseconds interval_;
    const FirstRun first_;
    const std::function<void()> task_;
    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::jthread thread_;  // last: starts once everything above exists
};

}  // namespace outbox
