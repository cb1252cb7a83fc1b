// The PostgreSQL cluster of a `db` or `e2e` test binary.
//
// Such binaries link db_test_main.cpp instead of gtest_main: it starts one throwaway cluster
// for the whole binary (controller/pgcluster in a temporary directory, unix socket only,
// fsync off), exports its connection string as BB_TEST_CONNINFO, runs the tests and destroys
// the cluster. With BB_TEST_CONNINFO already set, the tests use that server instead.
#pragma once

#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb::testing {

// libpq connection string of the test server's maintenance database.
std::string ClusterConninfo();

// Creates a new, empty database whose name starts with `prefix` and is unique in this
// process; returns its connection string.
Result<std::string> CreateDatabase(std::string_view prefix);

// Runs a shell command; returns its standard output, or an error naming the command and its
// exit status.
Result<std::string> RunCommand(const std::string& command);

}  // namespace bb::testing
