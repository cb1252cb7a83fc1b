# shellcheck shell=bash disable=SC2034  # COMPONENT_* are read by the scripts that source it
# A component's state from its directory (see controller/remote-exec): sourced by remote-exec,
# which answers for hosts the controller reaches by ssh, and by controller/run, which asks for
# its own host's components itself: once a second, without starting a process (the run's
# controller is on the database's host, so what it costs is taken from the database).
#
# component_state DIR: sets COMPONENT_STATE to running (COMPONENT_DETAIL: its pid), ending (its
# process has ended or is a zombie, and its supervisor, the pid in remote-exec.pgid, has yet to
# reap it and write its status; COMPONENT_DETAIL: its pid), exited (COMPONENT_DETAIL: its exit
# status) or vanished (no status and no supervisor: the supervisor itself was killed). Ending
# is a moment, but a busy machine stretches it: a poll that took it for vanished failed a run
# whose customer emulator had ended normally, and one that took it for running, with a customer
# emulator that ended because the killed Brokerage House had, named the wrong component.
# Builtins only.
COMPONENT_STATE=""
COMPONENT_DETAIL=""
component_state() {
  local dir="$1"
  COMPONENT_DETAIL=""
  if [[ -s "${dir}/remote-exec.rc" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.rc"; then
    COMPONENT_STATE=exited
  elif [[ -s "${dir}/remote-exec.pid" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.pid" &&
    process_lives "${COMPONENT_DETAIL}"; then
    COMPONENT_STATE=running
  elif [[ -n "${COMPONENT_DETAIL}" ]] && supervisor_runs "${dir}"; then
    COMPONENT_STATE=ending
  elif [[ -s "${dir}/remote-exec.rc" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.rc"; then
    COMPONENT_STATE=exited  # ended between the tests
  else
    COMPONENT_STATE=vanished
  fi
}

# process_lives PID: the process exists and is not a zombie (state Z in /proc/PID/stat, after
# the command name's last closing parenthesis: the name may hold spaces and parentheses).
process_lives() {
  local stat
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  [[ "${stat##*) }" != Z* ]]
}

# supervisor_runs DIR: the component's supervisor (the pid in remote-exec.pgid) still runs.
supervisor_runs() {
  local pid
  [[ -s "$1/remote-exec.pgid" ]] && read -r pid <"$1/remote-exec.pgid" && kill -0 "${pid}" 2>/dev/null
}
