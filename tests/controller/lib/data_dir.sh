# shellcheck shell=bash
# A data directory of the test's own for ./brokerbench (BB_DATA_DIR), so that its embedded
# cluster is never a user's. Sourced by the controller's shell tests, never run.

OWN_DATA_DIR_KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"

# own_data_dir NAME: makes /tmp/NAME.XXXXXX (others may traverse it: the cluster runs as
# another user under root), exports it as BB_DATA_DIR and sets ${data} to it; at exit the
# embedded cluster in it is destroyed and the directory removed.
own_data_dir() {
  data="$(mktemp -d "/tmp/$1.XXXXXX")"
  chmod 0711 "${data}"
  export BB_DATA_DIR="${data}"
  trap remove_own_data_dir EXIT
}

remove_own_data_dir() {
  "${OWN_DATA_DIR_KIT}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
