#pragma once

#include <functional>
#include <string>

namespace outbox::test {

// What `action` throws as an `Error`, or "(no error)": for comparing whole error messages.
template <typename Error>
std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace outbox::test
