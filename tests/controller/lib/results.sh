# shellcheck shell=bash
# Counting a results directory's transactions two ways, for the controller's end-to-end tests:
# from the raw mix logs, and from the report's results.json. The two must agree. Sourced.

# Per-type counts of the mix logs' rows (every host, every outcome) inside the measurement
# interval, computed here from the raw files: latest START and earliest STOP over the customer
# emulator logs; a row counts when it starts and ends inside. Trade-Cleanup is left out: it
# runs before the interval (the report shows its row over the whole log). Prints "CODE count"
# lines, sorted.
raw_counts() {
  local dir="$1" start stop
  start=$(cat "${dir}"/ce/*/mix-ce-*.csv | awk -F, '$2 == "START" && $1 > s { s = $1 } END { print s }')
  stop=$(cat "${dir}"/ce/*/mix-ce-*.csv | awk -F, '$2 == "STOP" && (t == "" || $1 < t) { t = $1 } END { print t }')
  cat "${dir}"/ce/*/mix-ce-*.csv "${dir}"/mee/*/mix-mee.csv |
    awk -F, -v s="${start}" -v t="${stop}" 'NF == 10 && length($2) == 2 && $2 != "TC" && $1 >= s && $1 + $5 <= t { n[$2]++ }
      END { for (c in n) print c, n[c] }' | sort
}

# The same from results.json: every type's rows (all outcomes) in the measurement interval.
report_counts() {
  perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!";
    my $t = JSON::PP::decode_json(<$f>)->{transactions};
    for my $c (keys %$t) { print "$c $t->{$c}{rows_in_mi}\n" if $t->{$c}{rows_in_mi} && $c ne "TC" }' \
    "$1/results.json" | sort
}
