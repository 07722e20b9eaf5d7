#pragma once

namespace outbox::pipeline {

// SIGINT/SIGTERM turned into a flag and a readable file descriptor (self-pipe), so the
// event loop wakes up at once instead of at its next timeout.
class ShutdownSignal {
public:
    static void install();
    static bool requested();
    static int fd();
    static void request();  // as if a signal arrived (tests, fatal paths)
};

}  // namespace outbox::pipeline
