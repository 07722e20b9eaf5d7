// outbox-bench-drain: runs one consumer of a replication slot (outbox-router, or pg_recvlogical
// for the decode floor) over a prepared backlog and measures it from outside:
//
//   outbox-bench-drain --conninfo STR --slot NAME --end-lsn LSN [--until confirmed|exit|records]
//                      [--poll-ms 5] [--log FILE] [--kafka-pid PID] [--marker TEXT]
//                      [--bootstrap B --topics T1,T2,... --records N] -- COMMAND ARGS...
//
//   --until confirmed  done when the slot's confirmed_flush_lsn reaches LSN (the router confirms a
//                      position only after Kafka acknowledged every event before it); the command
//                      is then stopped with SIGTERM.
//   --until exit       done when the command exits by itself (pg_recvlogical --start -E LSN).
//   --until records    done when --topics on --bootstrap hold --records records (sum of high
//                      watermarks): for a relay that confirms its slot on its own schedule
//                      (Debezium, at its offset flush), the same rule for both sides.
//
// One libpq connection polls pg_replication_slots every --poll-ms (a few hundred microseconds of
// server CPU per poll; the previous script forked psql every 20 ms, which cost a measurable share
// of a 2-core machine). Prints one line of key=value figures:
//   wall_s           command start (fork) to done
//   streaming_s      the command's --marker output line (default: the router's "streaming from
//                    slot") to done
//   cpu_s user_s sys_s  the command's CPU (all threads), read from /proc just before SIGTERM or
//                    from wait4() when it exited by itself
//   peak_rss_kib     VmHWM (or ru_maxrss after exit)
//   walsender_cpu_s  CPU of the walsender serving the slot (pg_replication_slots.active_pid)
//   walsender_sys_s  the part of it in the kernel (its system calls and the loopback's TCP work
//                    done in its context)
//   kafka_cpu_s      CPU used by --kafka-pid (the mock cluster) during the run
//   machine_busy_cores  all CPU used on the machine during the run / wall time (neighbours included)
//   others_cores     the same minus the command, the walsender and the mock cluster: what everything
//                    else on the machine used (other users' work, PostgreSQL's background processes)
// and, from samples taken at every poll while the walsender is active (`samples`), the share of them
// in which
//   walsender_on_cpu     the walsender was running or runnable (/proc/PID/stat state R)
//   walsender_blocked_on_client  it waited for its socket to drain (wait event WalSenderWriteData:
//                        the reader is behind)
//   reader_on_cpu        the command's main thread (the router's pipeline, pg_recvlogical) was running
//   reader_waiting       it was blocked in poll/select/epoll (nothing to read or to do)
//   reader_sleeping      it was in nanosleep (the router's read pacer)
// and, between the first and the last of those samples (/proc/PID/schedstat), the walsender's time
//   walsender_window_s   from the first to the last sample
//   walsender_window_cpu_s       on a CPU
//   walsender_window_runqueue_s  runnable but waiting for a CPU (the machine's other work)
#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <vector>
#include <iostream>
#include <string>

#include "bench_util.hpp"
#include "topic_counter.hpp"

using namespace outbox::bench;

namespace {

// What a thread is doing now: 'R' on a CPU, 'W' blocked waiting for a file descriptor, 'N' in a
// sleep, 'O' anything else (from its state and its system call; /proc/PID/syscall needs ptrace
// rights over it).
char activity_of(const std::string& task) {
    std::ifstream stat(task + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) return 'O';
    if (line[close + 2] == 'R') return 'R';
    std::ifstream syscall(task + "/syscall");
    std::string number;
    syscall >> number;
    if (number == "running") return 'R';
    // x86_64: select, poll, epoll_wait, pselect6, ppoll, epoll_pwait
    if (number == "23" || number == "7" || number == "232" || number == "270" || number == "271" || number == "281")
        return 'W';
    if (number == "35" || number == "230") return 'N';  // nanosleep, clock_nanosleep
    return 'O';
}

// The task's time on a CPU and waiting on a run queue, in seconds (/proc/PID/schedstat).
bool schedstat(pid_t pid, double& on_cpu, double& runqueue) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
    long long cpu_ns = 0, wait_ns = 0;
    if (!(in >> cpu_ns >> wait_ns)) return false;
    on_cpu = static_cast<double>(cpu_ns) / 1e9;
    runqueue = static_cast<double>(wait_ns) / 1e9;
    return true;
}

}  // namespace

int main(int argc, char** argv) try {
    const Args args(argc, argv);
    if (args.rest().empty()) throw std::runtime_error("no command after --");
    const std::string conninfo = args.required("conninfo");
    const std::string slot = args.required("slot");
    const std::string end_lsn = args.required("end-lsn");
    const std::string until = args.get("until", "confirmed");
    const bool until_exit = until == "exit";
    const bool until_records = until == "records";
    const std::string marker = args.get("marker", "streaming from slot");
    const int poll_ms = static_cast<int>(args.number("poll-ms", 5));
    const pid_t kafka_pid = static_cast<pid_t>(args.number("kafka-pid", 0));
    const std::string log_path = args.get("log", "/dev/null");

    std::unique_ptr<TopicCounter> counter;
    long long records_wanted = 0;
    if (until_records) {
        std::vector<std::string> topics;
        const std::string list = args.required("topics");
        for (std::size_t start = 0; start <= list.size();) {
            const auto comma = std::min(list.find(',', start), list.size());
            topics.push_back(list.substr(start, comma - start));
            start = comma + 1;
        }
        counter = std::make_unique<TopicCounter>(args.required("bootstrap"), topics);
        records_wanted = static_cast<long long>(args.number("records", 0));
    }

    PGconn* db = PQconnectdb(conninfo.c_str());
    if (PQstatus(db) != CONNECTION_OK) throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(db));
    PGresult* prepared = PQprepare(db, "slot",
                                   "SELECT coalesce(s.active_pid, 0), s.confirmed_flush_lsn >= $1::pg_lsn, "
                                   "coalesce(a.wait_event, '') FROM pg_replication_slots s "
                                   "LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid WHERE s.slot_name = $2",
                                   2, nullptr);
    if (PQresultStatus(prepared) != PGRES_COMMAND_OK) throw std::runtime_error(PQerrorMessage(db));
    PQclear(prepared);

    FILE* log = std::fopen(log_path.c_str(), "w");
    if (!log) throw std::runtime_error("cannot write " + log_path);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");

    const double kafka_cpu_before = kafka_pid > 0 ? proc_cpu_seconds(kafka_pid) : 0;
    const double busy_before = machine_busy_seconds();
    const std::int64_t start = mono_us();
    const pid_t child = spawn_with_output(args.rest(), out[1]);
    close(out[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);

    std::int64_t streaming_at = 0;
    std::int64_t next_query = start;
    double walsender_cpu = 0, walsender_sys = 0;
    long samples = 0, walsender_on_cpu = 0, walsender_blocked = 0, reader_on_cpu = 0, reader_waiting = 0,
         reader_sleeping = 0;
    double first_cpu = 0, first_runqueue = 0, last_cpu = 0, last_runqueue = 0;
    std::int64_t first_sample_at = 0, last_sample_at = 0;
    std::string partial;
    bool exited = false;
    int status = 0;
    rusage usage{};
    std::int64_t done_at = 0;
    const char* params[2] = {end_lsn.c_str(), slot.c_str()};

    const auto read_output = [&] {
        char buffer[4096];
        ssize_t n;
        while ((n = read(out[0], buffer, sizeof buffer)) > 0) {
            std::fwrite(buffer, 1, static_cast<std::size_t>(n), log);
            if (streaming_at == 0) {
                partial.append(buffer, static_cast<std::size_t>(n));
                if (partial.find(marker) != std::string::npos) streaming_at = mono_us();
                if (partial.size() > 65536) partial.erase(0, partial.size() - 1024);
            }
        }
    };

    while (done_at == 0) {
        pollfd fd{out[0], POLLIN, 0};
        const int wait_ms = static_cast<int>(std::max<std::int64_t>(0, (next_query - mono_us()) / 1000));
        poll(&fd, 1, wait_ms);
        read_output();
        if (!exited && wait4(child, &status, WNOHANG, &usage) == child) exited = true;
        if (mono_us() < next_query && !exited) continue;
        next_query = mono_us() + poll_ms * 1000;

        PGresult* result = PQexecPrepared(db, "slot", 2, params, nullptr, nullptr, 0);
        if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != 1)
            throw std::runtime_error("slot " + slot + ": " + PQerrorMessage(db));
        const pid_t walsender = static_cast<pid_t>(std::atol(PQgetvalue(result, 0, 0)));
        const bool confirmed = std::strcmp(PQgetvalue(result, 0, 1), "t") == 0;
        const bool blocked_on_client = std::strcmp(PQgetvalue(result, 0, 2), "WalSenderWriteData") == 0;
        PQclear(result);
        if (walsender > 0) {
            double walsender_user = 0, walsender_kernel = 0;
            if (proc_cpu(walsender, walsender_user, walsender_kernel)) {
                walsender_cpu = walsender_user + walsender_kernel;
                walsender_sys = walsender_kernel;
            }
            if (!exited && !confirmed) {
                ++samples;
                walsender_on_cpu += activity_of("/proc/" + std::to_string(walsender)) == 'R';
                walsender_blocked += blocked_on_client;
                const char reader = activity_of("/proc/" + std::to_string(child));
                reader_on_cpu += reader == 'R';
                reader_waiting += reader == 'W';
                reader_sleeping += reader == 'N';
                double on_cpu = 0, runqueue = 0;
                if (schedstat(walsender, on_cpu, runqueue)) {
                    if (first_sample_at == 0) {
                        first_sample_at = mono_us();
                        first_cpu = on_cpu;
                        first_runqueue = runqueue;
                    }
                    last_sample_at = mono_us();
                    last_cpu = on_cpu;
                    last_runqueue = runqueue;
                }
            }
        }
        if (until_exit ? exited : until_records ? counter->records() >= records_wanted : confirmed) done_at = mono_us();
        if (!until_exit && exited && done_at == 0) {
            std::fflush(log);
            throw std::runtime_error("the command exited before the slot reached " + end_lsn + " (see " + log_path + ")");
        }
    }

    double cpu = 0, user = 0, sys = 0;
    long peak_rss_kib = 0;
    if (exited) {
        user = seconds_of(usage.ru_utime);
        sys = seconds_of(usage.ru_stime);
        cpu = user + sys;
        peak_rss_kib = usage.ru_maxrss;
    } else {
        proc_cpu(child, user, sys);
        cpu = user + sys;
        peak_rss_kib = proc_status_kib(child, "VmHWM");
    }
    const double kafka_cpu = kafka_pid > 0 ? proc_cpu_seconds(kafka_pid) - kafka_cpu_before : 0;
    const double busy = machine_busy_seconds() - busy_before;
    if (!exited) {
        kill(child, SIGTERM);
        while (waitpid(child, &status, WNOHANG) == 0) {
            pollfd fd{out[0], POLLIN, 0};
            poll(&fd, 1, 10);
            read_output();
        }
    }
    read_output();
    std::fclose(log);
    PQfinish(db);

    const double wall = static_cast<double>(done_at - start) / 1e6;
    std::printf("wall_s=%.4f streaming_s=%.4f cpu_s=%.4f", wall,
                streaming_at ? static_cast<double>(done_at - streaming_at) / 1e6 : wall, cpu);
    std::printf(" user_s=%.4f sys_s=%.4f peak_rss_kib=%ld walsender_cpu_s=%.4f walsender_sys_s=%.4f kafka_cpu_s=%.4f machine_busy_cores=%.3f"
                " others_cores=%.3f",
                user, sys, peak_rss_kib, walsender_cpu, walsender_sys, kafka_cpu, busy / wall,
                std::max(0.0, busy - cpu - walsender_cpu - kafka_cpu) / wall);
    const auto share = [&](long count) { return samples ? static_cast<double>(count) / static_cast<double>(samples) : 0.0; };
    std::printf(" samples=%ld walsender_on_cpu=%.3f walsender_blocked_on_client=%.3f reader_on_cpu=%.3f reader_waiting=%.3f"
                " reader_sleeping=%.3f walsender_window_s=%.4f walsender_window_cpu_s=%.4f walsender_window_runqueue_s=%.4f\n",
                samples, share(walsender_on_cpu), share(walsender_blocked), share(reader_on_cpu), share(reader_waiting),
                share(reader_sleeping), static_cast<double>(last_sample_at - first_sample_at) / 1e6, last_cpu - first_cpu,
                last_runqueue - first_runqueue);
    return 0;
} catch (const std::exception& e) {
    std::cerr << "outbox-bench-drain: " << e.what() << "\n";
    return 1;
}
