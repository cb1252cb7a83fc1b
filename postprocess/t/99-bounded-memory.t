# LONG TEST (about a minute): bb-report on a 2-million-row run under a 256 MB address-space cap
# (issue 31, item 1), and its figures against the exact ones of the short run it is made of.
#
# The short run: a synthetic results directory shaped like a real run (SyntheticRun.pm: no real
# run's logs are kept in the repository), about 110 000 rows. Its exact figures are computed
# here from its rows, independently of the report's code: per type the counts by outcome in and
# outside the MI, the retries, the nearest-rank percentiles, minimum, average and maximum of the
# valid response times, the mix, the input variants, the market emulator's waits. The long run:
# the short run's MI copied N times, each copy shifted by the MI's length (RunCopies.pm), made
# in a temporary directory at test time. Its report, made with at most 256 MB of address space
# (ulimit -v), must give every count of the MI N times the short run's and every count outside
# it the same; the percentiles the exact ones or at most 0.1 % (1/1024) above; minimum, maximum,
# averages, shares and the throughput the same. Then the short run's own report against the same
# exact figures.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use File::Find ();
use List::Util qw(sum0);
use BBTest qw(tmpdir read_json);
use BrokerBench::SyntheticRun qw(write_synthetic_run);
use BrokerBench::RunCopies qw(copy_run);
use BrokerBench::Spec qw(@ALL_CODES @MIX_CODES @ERROR_OUTCOMES %IS_VALID @INPUT_VARIANTS);

my $ROWS   = 2_000_000;
my $CAP_KB = 262_144;
my $REPORT = "$FindBin::RealBin/../bb-report";

# --- the exact figures, from the rows -----------------------------------------------------------

sub mix_logs {
  my ($dir) = @_;
  my @logs;
  File::Find::find({ no_chdir => 1, wanted => sub { push @logs, $_ if m{/mix-[^/]*\.csv\z} } },
                   $dir);
  return sort @logs;
}

sub nearest_rank {
  my ($sorted, $p) = @_;
  my $rank = int((@$sorted * $p + 99) / 100);
  $rank = 1 if $rank < 1;
  return $sorted->[ $rank - 1 ];
}

sub stats_of {
  my ($values) = @_;
  my @s = sort { $a <=> $b } @$values;
  return {} unless @s;
  return { n => scalar @s, min => $s[0], max => $s[-1], avg => sum0(@s) / @s,
           map { ("p$_" => nearest_rank(\@s, $_)) } 50, 90, 95, 99 };
}

sub exact_figures {
  my ($dir) = @_;
  my (@rows, @starts, @stops);
  for my $log (mix_logs($dir)) {
    my $ce = $log =~ m{/ce/};
    open my $fh, '<', $log or die "$log: $!";
    while (my $line = <$fh>) {
      chomp $line;
      next if $line =~ /\A(?:#|start_us,)/;
      my @f = split /,/, $line, -1;
      if ($f[1] eq 'START' || $f[1] eq 'STOP') {
        push @{ $f[1] eq 'START' ? \@starts : \@stops }, $f[0] if $ce;
        next;
      }
      push @rows, \@f;
    }
  }
  my ($t0) = sort { $b <=> $a } @starts;
  my ($t1) = sort { $a <=> $b } @stops;
  my (%x, %resp, %wait, %tokens);
  for my $f (@rows) {
    my ($t, $code, undef, $oc, $r, $retries, undef, $w, $inputs) = @$f;
    my $in = $code eq 'TC' || ($t >= $t0 && $t + $r <= $t1);
    $x{$code}{ $in ? 'in' : 'out' }{$oc}++;
    $x{$code}{retries} += $retries if $in;
    push @{ $wait{$code} }, $w if $in && ($code eq 'TR' || $code eq 'MF');
    next unless $in && $IS_VALID{$oc};
    push @{ $resp{$code} }, $r;
    next unless defined $inputs && $inputs ne '';
    $tokens{$code}{$_}++ for split / /, $inputs;
  }
  my $mix = sum0(map { scalar @{ $resp{$_} // [] } } @MIX_CODES);
  return { mi_s => ($t1 - $t0) / 1e6, rows => scalar @rows, counts => \%x,
           resp => { map { $_ => stats_of($resp{$_} // []) } @ALL_CODES },
           wait => { map { $_ => stats_of($wait{$_} // []) } qw(TR MF) },
           mix_total => $mix, tokens => \%tokens };
}

# --- the report against them ---------------------------------------------------------------------

# A percentile read from a histogram: the exact value, or at most 1/1024 of it above.
sub within {
  my ($got_ms, $exact_us, $what) = @_;
  my $got = $got_ms * 1000;
  ok(defined $got_ms && $got >= $exact_us - 1e-6 && $got <= $exact_us * (1 + 1 / 1024) + 1e-6,
     sprintf('%s: %.3f ms, exact %.3f ms', $what, $got_ms // -1, $exact_us / 1000));
}

sub check_report {
  my ($label, $j, $x, $n) = @_;
  subtest "$label: the report's figures are the short run's exact ones, counts of the MI x $n" => sub {
    for my $code (@ALL_CODES) {
      my $t = $j->{transactions}{$code};
      my $c = $x->{counts}{$code} // {};
      my $k = $code eq 'TC' ? 1 : $n;    # Trade-Cleanup's one row is before the MI
      for my $oc (keys %{ $t->{outcomes_in_mi} }) {
        is($t->{outcomes_in_mi}{$oc}, $k * ($c->{in}{$oc} // 0), "$code $oc in the MI");
        is($t->{outcomes_outside_mi}{$oc}, $c->{out}{$oc} // 0, "$code $oc outside the MI");
      }
      is($t->{retries}, $k * ($c->{retries} // 0), "$code retries in the MI");
      is($t->{errors}, $k * sum0(map { $c->{in}{$_} // 0 } @ERROR_OUTCOMES), "$code errors");
      my $s = $x->{resp}{$code};
      is($t->{count}, $k * ($s->{n} // 0), "$code valid in the MI");
      next unless $s->{n};
      is($t->{response_time_min_ms}, $s->{min} / 1000, "$code minimum, exact");
      is($t->{response_time_max_ms}, $s->{max} / 1000, "$code maximum, exact");
      cmp_ok(abs($t->{response_time_avg_ms} - $s->{avg} / 1000), '<', 1e-9, "$code average");
      within($t->{"response_time_p${_}_ms"}, $s->{"p$_"}, "$code p$_") for 50, 90, 95, 99;
      next unless $t->{in_mix};
      is($t->{mix_pct}, sprintf('%.4f', 100 * $s->{n} / $x->{mix_total}) + 0, "$code mix %");
    }
    my $tr = $x->{resp}{TR}{n};
    is($j->{trtps}{trade_results_in_mi}, $n * $tr, 'Trade-Results in the MI');
    cmp_ok(abs($j->{trtps}{measured_tpse} - $tr / $x->{mi_s}), '<', 1e-9, 'measured TRTPS');
    for my $v (@{ $j->{input_variants}{variants} }) {
      my ($code, $token) = @$v{qw(code token)};
      is($v->{count}, $n * ($x->{tokens}{$code}{$token} // 0), "$code $token count");
      is($v->{of}, $n * $x->{resp}{$code}{n}, "$code $token of");
    }
    for my $code (qw(TR MF)) {
      my ($w, $s) = ($j->{mee}{wait}{$code}, $x->{wait}{$code});
      is($w->{rows_in_mi}, $n * $s->{n}, "$code waits in the MI");
      within($w->{"wait_${_}_ms"}, $s->{$_}, "$code wait $_") for qw(p50 p90 max);
    }
    is($j->{reconciliation}{ce}{status}, 'holds', 'every customer request accounted for');
    is($j->{reconciliation}{mee}{status}, 'holds', 'every order accounted for');
    is($j->{db_trade_count}{driver}, $n * $tr, "the database check's driver count");
    ok(!$j->{problems_total}, 'no input problem');
  };
}

# --- the runs ------------------------------------------------------------------------------------

my $dir = tmpdir();
my $short = "$dir/short";
write_synthetic_run($short, rate => 1200, mi_s => 60, ramp_s => 20, error_p => 0.001, seed => 31);
my $x = exact_figures($short);
my $in_mi = sum0(map { my $c = $_; sum0(values %{ $c->{in} // {} }) } values %{ $x->{counts} })
            - 1;    # Trade-Cleanup
my $copies = int(($ROWS - ($x->{rows} - $in_mi)) / $in_mi + 0.999);
my $long = "$dir/long";
my $made = copy_run(from => $short, to => $long, copies => $copies);
cmp_ok($made->{rows}, '>=', $ROWS, "the long run has $made->{rows} rows ($copies copies of "
                                   . "$in_mi rows of the MI, and $x->{rows} rows in all)");

my $t = time;
my $rc = system('sh', '-c', 'ulimit -v "$1" && exec "$2" "$3" --quiet "$4" >"$4/out" 2>"$4/err"',
                'cap', $CAP_KB, $^X, $REPORT, $long);
is($rc, 0, "bb-report completes on $made->{rows} rows with at most 256 MB of address space ("
           . (time - $t) . ' s)') or diag(`cat $long/err`);
like(`cat $long/out`, qr/^Report: /m, 'and writes its report');
check_report('2 million rows', read_json("$long/results.json"), $x, $copies);

is(system("$^X $REPORT --quiet --no-plots $short >/dev/null"), 0, 'the short run reported');
check_report('the short run', read_json("$short/results.json"), $x, 1);

done_testing();
