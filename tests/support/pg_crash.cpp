#include "pg_crash.hpp"

#include <signal.h>
#include <sys/shm.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace outbox::test {
namespace {

// The parent pid from /proc/<pid>/stat: "pid (comm) state ppid ...", comm may hold spaces.
pid_t parent_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    pid_t parent = -1;
    rest >> state >> parent;
    return parent;
}

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> children;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = std::stoi(name);
        if (parent_of(pid) == parent) children.push_back(pid);
    }
    return children;
}

// Exited: no /proc entry left, or a zombie waiting for whoever reaps it.
bool gone(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    if (!in) return true;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() || text[close + 2] == 'Z';
}

}  // namespace

void crash_server(const std::string& data_dir) {
    std::ifstream pid_file(data_dir + "/postmaster.pid");
    std::vector<std::string> lines;
    for (std::string line; std::getline(pid_file, line);) lines.push_back(line);
    if (lines.empty()) throw std::runtime_error("crash_server: no postmaster.pid in " + data_dir);
    const pid_t postmaster = std::stoi(lines[0]);
    // Stopped first, so that no process notices another's death and starts shutting down.
    if (kill(postmaster, SIGSTOP) != 0) throw std::runtime_error("crash_server: the postmaster is not running");
    std::vector<pid_t> all{postmaster};
    for (const pid_t child : children_of(postmaster)) {
        kill(child, SIGSTOP);
        all.push_back(child);
    }
    for (const pid_t pid : all) kill(pid, SIGKILL);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (const pid_t pid : all)
        while (!gone(pid) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // Line 7: "<key> <shmid>" of the segment the postmaster created; removed once detached.
    if (lines.size() >= 7) {
        std::istringstream segment(lines[6]);
        long key = 0;
        int shmid = -1;
        if (segment >> key >> shmid && shmid >= 0) shmctl(shmid, IPC_RMID, nullptr);
    }
}

}  // namespace outbox::test
