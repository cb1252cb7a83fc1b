#!/usr/bin/env bash
# controller/lib/components.sh, the run's table of components, on this host: start_component
# starts each under remote-exec in its own directory (the table has its name, host, directory,
# log and state), poll_components follows each to running, exited:RC or vanished (its
# supervisor killed; not while it writes the status, and a poll never returns while a component
# is ending: components that end together are seen together), stop_component ends one by pid and
# records stopped:RC, stop_all stops what still runs, newest first; wait_for_port reads a port
# file and fails, naming the component, when it exits first.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/hosts.sh
source "${root}/controller/lib/hosts.sh"
# shellcheck source=controller/lib/component-status.sh
source "${root}/controller/lib/component-status.sh"
# shellcheck source=controller/lib/components.sh
source "${root}/controller/lib/components.sh"
work="$(mktemp -d /tmp/bbcomponentstest.XXXXXX)"
cleanup() {
  local d pid
  for d in "${C_LOCAL[@]}"; do  # whatever a failed check left running: ours, by pid
    for pid in "$(cat "${d}/remote-exec.pid" 2>/dev/null)" "$(cat "${d}/remote-exec.pgid" 2>/dev/null)"; do
      [[ -z "${pid}" ]] || kill -KILL "${pid}" 2>/dev/null || true
    done
  done
  rm -rf -- "${work}"
}
trap cleanup EXIT

RESULTS="${work}/results"
CONTROLLER_LOG="${work}/controller.log"
RUN_ID="components-test"
CFG_WORK="${work}/remote"
mkdir -p "${RESULTS}"
# controller/run's fail exits; here it says why and fails the caller (run in a subshell).
fail() { printf '%s\n' "$1" >"${work}/failed"; exit 1; }

# Polls until component I is no longer running (at most 10 s).
settle() {
  local n
  for ((n = 0; n < 200; n++)); do
    poll_components
    [[ "${C_STATE[$1]}" == running ]] || return 0
    sleep 0.05
  done
}
state_is() { [[ "${C_STATE[$1]}" == "$2" ]] || { printf '    C_STATE[%s] %s\n' "$1" "${C_STATE[$1]}"; return 1; }; }

start_component "sleeper" local ce sleeper.log sleep 60
sleeper=${COMP}
start_component "quitter" local mee quitter.log sh -c 'echo bye; exit 3'
quitter=${COMP}
start_component "listener" local bh listener.log sh -c 'echo 4242 >port.txt; exec sleep 60'
listener=${COMP}
start_component "second sleeper" local ce sleeper.log sleep 60
second=${COMP}

check "the table: four rows, in the order started" test "${#C_NAME[@]}" -eq 4
check "each in its place in the results directory" test "${C_LOCAL[sleeper]}" == "${RESULTS}/ce/$(host_label local)"
check "a second of a kind gets a directory of its own" test "${C_LOCAL[second]}" == "${RESULTS}/ce/$(host_label local).3"
check "the log where the table says" test "${C_LOG[quitter]}" == "${RESULTS}/mee/$(host_label local)/quitter.log"
settle "${quitter}"
check "a component that ends: exited with its status" state_is "${quitter}" exited:3
check "its output in its log" grep -qx bye "$(component_log "${quitter}")"
check "one still running: running" state_is "${sleeper}" running
wait_for_port "${listener}" port.txt
check "wait_for_port reads the port file" test "${PORT}" == 4242

(wait_for_port "${quitter}" never.txt) 2>/dev/null && ok=1 || ok=0
check "wait_for_port fails when the component has exited" test "${ok}" -eq 0
check "... naming it" grep -q "the quitter exited while starting" "${work}/failed"

kill -KILL "$(cat "${C_LOCAL[second]}/remote-exec.pgid")" "$(cat "${C_LOCAL[second]}/remote-exec.pid")"
settle "${second}"
check "its supervisor and it killed: vanished" state_is "${second}" vanished

# The moment between a component's end and its status: the supervisor (here a sleep of ours in
# remote-exec.pgid) still runs and has not written remote-exec.rc. Not vanished (a poll there
# once failed a run whose customer emulator had ended normally): ending, then exited.
ending="${work}/ending"
mkdir -p "${ending}"
true &
ended=$!
wait "${ended}"
sleep 30 &
supervisor=$!
printf '%s\n' "${ended}" >"${ending}/remote-exec.pid"
printf '%s\n' "${supervisor}" >"${ending}/remote-exec.pgid"
component_state "${ending}"
check "ended, its supervisor still writing its status: ending" test "${COMPONENT_STATE}" == ending
printf '0\n' >"${ending}/remote-exec.rc"
component_state "${ending}"
check "... then exited with the status written" test "${COMPONENT_STATE} ${COMPONENT_DETAIL}" == "exited 0"
rm "${ending}/remote-exec.rc"
kill -KILL "${supervisor}"
wait "${supervisor}" 2>/dev/null || true
component_state "${ending}"
check "no status, no supervisor: vanished" test "${COMPONENT_STATE}" == vanished

# Two that end together, as when the Brokerage House is killed and the customer emulator ends
# for the loss of it: the server's supervisor is slow (stopped here, so the server stays a
# zombie, which kill -0 still finds) and the client's status comes first. The poll waits for
# the server's status, so the run names the server (the first started), not the client.
start_component "server" local bh server.log sleep 60
server=${COMP}
start_component "client" local ce client.log sh -c 'exit 1'
client=${COMP}
kill -STOP "$(cat "${C_LOCAL[server]}/remote-exec.pgid")"
server_pid=$(cat "${C_LOCAL[server]}/remote-exec.pid")
kill -KILL "${server_pid}"
# SIGKILL lands a moment after kill(1) returns: wait (up to 5 s) for the server to be a zombie
# and for the client's status.
for ((n = 0; n < 100; n++)); do
  ! process_lives "${server_pid}" && [[ -s "${C_LOCAL[client]}/remote-exec.rc" ]] && break
  sleep 0.05
done
component_state "${C_DIR[server]}"
check "a killed component its supervisor has not reaped: ending" test "${COMPONENT_STATE}" == ending
(sleep 0.5 && kill -CONT "$(cat "${C_LOCAL[server]}/remote-exec.pgid")") &
poll_components
check "the poll waits for its status: exited, with the signal's" state_is "${server}" exited:137
check "... beside the one that ended after it" state_is "${client}" exited:1

stop_component "${sleeper}" 5
check "stop_component: stopped with the exit status SIGTERM gave" state_is "${sleeper}" stopped:143
check "... and the process is gone" test ! -d "/proc/$(cat "${C_LOCAL[sleeper]}/remote-exec.pid")"
stop_all
check "stop_all stops what still ran" state_is "${listener}" stopped:143
check "... and leaves the others as they were" state_is "${quitter}" exited:3
check "the controller log has each start and stop" \
  test "$(grep -c ' started \| stopped ' "${CONTROLLER_LOG}")" -eq 8

check_summary
