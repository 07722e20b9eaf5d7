#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace outbox::test {

// One JVM child (a Kafka node, a Kafka Connect worker): started with `java` from JAVA_HOME or the
// PATH, its standard output and error appended to a file, killed with the test program that
// started it (PR_SET_PDEATHSIG) and by the destructor.
class JavaProcess {
public:
    JavaProcess() = default;
    ~JavaProcess();
    JavaProcess(const JavaProcess&) = delete;
    JavaProcess& operator=(const JavaProcess&) = delete;

    // `arguments`: JVM options, the main class and its arguments (without "java"); `java`: the
    // binary, java_binary() when empty.
    void start(const std::vector<std::string>& arguments, const std::string& output_file,
               const std::string& java = "");
    bool running();
    // SIGTERM and a wait for the JVM's shutdown hooks; SIGKILL after `timeout`.
    void stop(std::chrono::milliseconds timeout);
    void kill_hard();
    void pause();   // SIGSTOP: the process holds its sockets and answers nothing
    void resume();  // SIGCONT

private:
    pid_t pid_ = -1;
};

// The java binary the tests run: $JAVA_HOME/bin/java, else `java` from the PATH.
std::string java_binary();
// The last `lines` lines of a file ("" when it does not exist).
std::string tail_of_file(const std::string& path, int lines);
// A log4j2 configuration that writes INFO and above to `log_file`, Kafka's client classes at WARN.
std::string log4j2_file_config(const std::string& log_file);

}  // namespace outbox::test
