#!/usr/bin/env bash
# One build directory per configuration: a CI build (-Werror) and a user's build never
# reconfigure each other. controller/build runs on a stand-in kit (a CMakeLists.txt with no
# targets and a setup that installs nothing), so configuring takes a second and nothing is
# compiled. Checks:
#   1. default_build_dir: build/ for a user (CI unset, empty or "false"), build-ci/ for CI;
#      BB_BUILD_DIR given still wins;
#   2. a user's build configures build/ without -Werror and makes no build-ci/;
#   3. a CI build configures build-ci/ with -Werror and leaves build/'s CMakeCache.txt as it was;
#   4. the user's next build configures nothing, and leaves build-ci/'s cache as it was.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
work="$(mktemp -d /tmp/bbbuildtest.XXXXXX)"
trap 'rm -rf -- "${work}"' EXIT

kit="${work}/kit"
mkdir -p "${kit}/controller"
printf '#!/usr/bin/env bash\nexit 0\n' >"${kit}/controller/setup"
chmod +x "${kit}/controller/setup"
cat >"${kit}/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(stand_in NONE)
option(BB_WERROR "warnings are errors" OFF)
CMAKE

# selected [VAR=VALUE...]: the build directory common.sh selects for the stand-in kit, in an
# environment with neither CI nor BB_BUILD_DIR but the assignments given.
selected() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  env -u CI -u BB_BUILD_DIR "$@" BB_ROOT="${kit}" \
    bash -c 'source "$1/controller/lib/common.sh" && printf "%s\n" "${BB_BUILD_DIR}"' _ "${root}"
}
check "no CI: build/" test "$(selected)" == "${kit}/build"
check "CI=false: build/" test "$(selected CI=false)" == "${kit}/build"
check "CI empty: build/" test "$(selected CI=)" == "${kit}/build"
check "CI=true: build-ci/" test "$(selected CI=true)" == "${kit}/build-ci"
check "CI=1: build-ci/" test "$(selected CI=1)" == "${kit}/build-ci"
check "BB_BUILD_DIR given wins over CI" \
  test "$(selected CI=true BB_BUILD_DIR=/elsewhere)" == /elsewhere

# build NAME [VAR=VALUE...]: controller/build on the stand-in kit; its output in ${work}/NAME.out.
build() {
  local name="$1" rc=0
  shift
  env -u CI -u BB_BUILD_DIR "$@" BB_ROOT="${kit}" "${root}/controller/build" \
    >"${work}/${name}.out" 2>&1 || rc=$?
  [[ ${rc} -eq 0 ]] || { cat "${work}/${name}.out"; printf '%s: exit %d\n' "${name}" "${rc}"; }
}
# The state of a file: its content's checksum and its modification time (nanoseconds).
state() { printf '%s %s\n' "$(md5sum <"$1")" "$(stat -c %y "$1")"; }

build user
check "a user's build configures build/" has_line "${work}/user.out" "configuring ${kit}/build$"
check "... without -Werror" has_line "${kit}/build/CMakeCache.txt" '^BB_WERROR:BOOL=OFF$'
check "... and makes no build-ci/" test ! -e "${kit}/build-ci"
user_cache=$(state "${kit}/build/CMakeCache.txt")

build ci CI=true
check "a CI build configures build-ci/" has_line "${work}/ci.out" "configuring ${kit}/build-ci$"
check "... with -Werror" has_line "${kit}/build-ci/CMakeCache.txt" '^BB_WERROR:BOOL=ON$'
check "... and leaves build/'s CMakeCache.txt as it was" \
  test "$(state "${kit}/build/CMakeCache.txt")" == "${user_cache}"
ci_cache=$(state "${kit}/build-ci/CMakeCache.txt")

build user-again
check "the user's next build configures nothing" lacks_line "${work}/user-again.out" configuring
check "... and leaves build-ci/'s CMakeCache.txt as it was" \
  test "$(state "${kit}/build-ci/CMakeCache.txt")" == "${ci_cache}"
check "... and build/'s too" test "$(state "${kit}/build/CMakeCache.txt")" == "${user_cache}"

check_summary
