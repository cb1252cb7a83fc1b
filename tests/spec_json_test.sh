#!/usr/bin/env bash
# The post-processor's constants (postprocess/lib/BrokerBench/spec.json, read by Spec.pm) are
# exactly what `bb-spec --json` prints from common/workload/spec.h: a constant changed on one
# side only fails here, naming the lines that differ and how to bring the copy up to date.
# Usage: spec_json_test.sh BB_SPEC SPEC_JSON
set -euo pipefail
bb_spec="$1" json="$2"
if ! diff -u "${json}" <("${bb_spec}" --json); then
  # shellcheck disable=SC2016 # the backquotes name a command, for the reader
  printf 'FAIL: %s differs from `bb-spec --json` (above: - the file, + the program).\n' "${json}" >&2
  printf 'common/workload/spec.h is the source: regenerate with\n  %s --json > %s\n' "${bb_spec}" "${json}" >&2
  exit 1
fi
printf 'ok: %s is bb-spec --json\n' "${json}"
