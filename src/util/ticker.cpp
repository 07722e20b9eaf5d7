#include "outbox/util/ticker.hpp"

#include <exception>
#include <string>

#include "outbox/util/log.hpp"

namespace outbox {

Ticker::Ticker(std::chrono::milliseconds interval, std::function<void()> task, FirstRun first)
    : interval_(interval), first_(first), task_(std::move(task)), thread_([this](std::stop_token stop) { loop(stop); }) {}

Ticker::~Ticker() {
    thread_.request_stop();  // wakes wait_for through the stop token
    thread_.join();
}

void Ticker::loop(std::stop_token stop) {
    if (first_ == FirstRun::after_interval) {
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, stop, interval_, [] { return false; });
    }
    while (!stop.stop_requested()) {
        try {
            task_();
        } catch (const std::exception& e) {
            log::warn(std::string("periodic task failed: ") + e.what());
        }
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, stop, interval_, [] { return false; });
    }
}

}  // namespace outbox
