#pragma once

#include <string>

namespace outbox::test {

// Ends the PostgreSQL server running on `data_dir` the way a host crash would: nothing it runs
// gets to act. Every process (the postmaster and each child, read from /proc: they are not all
// in one process group) is stopped with SIGSTOP first, then killed with SIGKILL, and the System V
// shared memory segment a killed postmaster leaves behind is removed. `pg_ctl stop -m immediate`
// is no crash: the postmaster still tells its children and the walsenders to quit.
void crash_server(const std::string& data_dir);

}  // namespace outbox::test
