package BrokerBench::BenchSummary;
# The tables the bench commands print (controller/bench: load and harness; controller/bench-ce
# and bench-mee: a line per run), from the files the controller writes or keeps while it
# measures (bench overhead's are in OverheadSummary.pm). The controller only measures and records;
# every median, ratio and rate of those tables is worked out here (issue 32: statistics in one
# language).
#
# A figures file has one line per record: a kind word, an optional positional number, then
# key=value fields separated by blanks, e.g.
#   pair 2 report=/path/loader-2.json ceiling_ns=3730000000 db_bytes=1142022144
# read_figures checks that the fields a kind needs are there and are numbers, and dies naming
# the file, the line, the field and the value otherwise.
use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use List::Util qw(min max);
use BrokerBench::EndRecord qw(read_end_record);
use BrokerBench::Stats qw(median nearest_rank);

our @EXPORT_OK = qw(read_figures load_table harness_table ce_run_line mee_mix_figures);

my $NUMBER = qr/\A-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\z/;

# read_figures($path, { KIND => [numeric fields], ... }) -> list of { kind, n, line, f => {} }
# for the lines whose kind is listed (other kinds are skipped, blank lines and # comments too).
# A listed kind's fields must all be present and numeric; its positional number, when it has
# one, must be a whole number.
sub read_figures {
  my ($path, $kinds) = @_;
  open my $fh, '<', $path or die "$path: $!\n";
  my @records;
  while (my $text = <$fh>) {
    chomp $text;
    next if $text =~ /\A\s*(?:#|\z)/;
    my ($kind, @tokens) = split ' ', $text;
    next unless $kinds->{$kind};
    my %r = (kind => $kind, line => $., f => {});
    if (@tokens && $tokens[0] !~ /=/) {
      $r{n} = shift @tokens;
      die "$path:$.: $kind: '$r{n}' is not a whole number\n" unless $r{n} =~ /\A\d+\z/;
    }
    for my $t (@tokens) {
      my ($k, $v) = split /=/, $t, 2;
      die "$path:$.: '$t' is not a key=value field\n" unless defined $v && length $k;
      $r{f}{$k} = $v;
    }
    for my $k (@{ $kinds->{$kind} }) {
      die "$path:$.: $kind: no field $k\n" unless defined $r{f}{$k};
      die "$path:$.: $k: '$r{f}{$k}' is not a number\n" unless $r{f}{$k} =~ $NUMBER;
    }
    push @records, \%r;
  }
  close $fh;
  return @records;
}

# The phases of a bb-loader --report file: (name => seconds, ...) in their order, and the sum
# of every phase (the full build).
sub loader_phases {
  my ($path) = @_;
  open my $fh, '<', $path or die "$path: $!\n";
  my $text = do { local $/; <$fh> };
  my $report = eval { JSON::PP->new->decode($text) }
    or die "$path: not a bb-loader report (" . ($@ =~ s/\s+\z//r) . ")\n";
  my (%seconds, $total);
  for my $p (@{ $report->{phases} // [] }) {
    die "$path: phase '" . ($p->{name} // '?') . "': seconds '" . ($p->{seconds} // '') . "' is not a number\n"
      unless defined $p->{seconds} && $p->{seconds} =~ $NUMBER;
    $seconds{ $p->{name} } = $p->{seconds};
    $total += $p->{seconds};
  }
  return (\%seconds, $total // 0);
}

my @LOAD_PHASES = ('generate+COPY', 'keys and indexes', 'analyze', 'foreign keys');

# load_table($figures_path) -> the text bench load prints for one size: each phase's median
# seconds (and the data phase's rows/s and MB/s), the ceiling's, the median of the per-pair
# ratios loader / ceiling (data phase and full build), and the median database size. The file
# holds one "size customers= days= rows= bytes=" line (rows and bytes of the COPY text) and one
# "pair R report= ceiling_ns= db_bytes=" line per pair (the loader's --report, the ceiling's
# wall time, pg_database_size after the loader).
sub load_table {
  my ($path) = @_;
  my @rec = read_figures($path, { size => [qw(customers days rows bytes)],
                                  pair => [qw(ceiling_ns db_bytes)] });
  my @size = grep { $_->{kind} eq 'size' } @rec;
  die "$path: no size line (size customers= days= rows= bytes=)\n" unless @size;
  die "$path:$size[1]{line}: a second size line\n" if @size > 1;
  my %s = %{ $size[0]{f} };
  my @pairs;
  for my $r (grep { $_->{kind} eq 'pair' } @rec) {
    my $report = $r->{f}{report} // die "$path:$r->{line}: pair: no field report\n";
    my ($phases, $build) = loader_phases($report);
    for my $name (@LOAD_PHASES) {
      die "$report: no phase '$name'\n" unless defined $phases->{$name};
    }
    push @pairs, { phases => $phases, build => $build, ceiling => $r->{f}{ceiling_ns} / 1e9,
                   db_bytes => $r->{f}{db_bytes} };
  }
  die "$path: no pair line (pair R report= ceiling_ns= db_bytes=)\n" unless @pairs;
  my $n = scalar @pairs;
  my $out = sprintf "\n== %s customers, %s initial trade days: %s rows, %.1f MB of COPY text\n",
                    $s{customers}, $s{days}, $s{rows}, $s{bytes} / 1e6;
  $out .= sprintf "%-22s %9s %12s %9s\n", qw(phase seconds rows/s MB/s);
  for my $name (@LOAD_PHASES) {
    my $m = median(map { $_->{phases}{$name} } @pairs);
    $out .= $name eq 'generate+COPY' && $m > 0
          ? sprintf("%-22s %9.2f %12.0f %9.1f\n", $name, $m, $s{rows} / $m, $s{bytes} / 1e6 / $m)
          : sprintf("%-22s %9.2f %12s %9s\n", $name, $m, '', '');
  }
  my $c = median(map { $_->{ceiling} } @pairs);
  die "$path: the ceiling's median time is 0\n" unless $c > 0;
  $out .= sprintf "%-22s %9.2f %12.0f %9.1f\n", 'ceiling: COPY FROM file', $c, $s{rows} / $c,
                  $s{bytes} / 1e6 / $c;
  my $list = sub { my ($k) = @_; join ', ', map { sprintf '%.2f/%.2f', $k->($_), $_->{ceiling} } @pairs };
  my $data = sub { $_[0]{phases}{'generate+COPY'} };
  my $full = sub { $_[0]{build} };
  $out .= sprintf "loader data phase / ceiling: median of %s pairs %.2fx (pairs: %s)\n", $n,
                  median(map { $data->($_) / $_->{ceiling} } @pairs), $list->($data);
  $out .= sprintf "full build (every phase) / ceiling: median of %s pairs %.2fx (pairs: %s)\n", $n,
                  median(map { $full->($_) / $_->{ceiling} } @pairs), $list->($full);
  my $mb = median(map { $_->{db_bytes} } @pairs) / 1048576;
  $out .= sprintf "database size after the load: %.0f MB (%.0f MB per 1000 customers)\n", $mb,
                  $mb / ($s{customers} / 1000);
  return $out;
}

# harness_table($runs_path, $clock_ticks_per_s) -> the table bench harness prints: per number
# of connections the medians of each figure for the BH and the echo server, and the median of
# the per-pair ratios of req/s. Each line of the runs file is "pair R" + bb-netbench client's
# key=value line + server_ticks= io_ticks= (the server's and its I/O thread's CPU over the run).
sub harness_table {
  my ($path, $hz) = @_;
  die "harness: clock ticks per second: '" . ($hz // '') . "' is not a positive number\n"
    unless defined $hz && $hz =~ $NUMBER && $hz > 0;
  my @runs = read_figures($path, { pair => [qw(connections rps completed seconds server_ticks
                                               io_ticks p50_us p99_us client_cpu_cores
                                               request_bytes reply_bytes)] });
  die "$path: no runs (pair R mode= connections= ...)\n" unless @runs;
  my (%v, @order, %rounds, %pair, %bytes);
  for my $r (@runs) {
    my %f = %{ $r->{f} };
    my ($c, $m) = ($f{connections}, $f{mode} // '');
    die "$path:$r->{line}: mode: '$m' is neither bh nor echo\n" unless $m eq 'bh' || $m eq 'echo';
    die "$path:$r->{line}: pair: no round number\n" unless defined $r->{n};
    die "$path:$r->{line}: completed: '$f{completed}' is no reply at all\n" unless $f{completed} > 0;
    die "$path:$r->{line}: seconds: '$f{seconds}' is not a positive number\n" unless $f{seconds} > 0;
    push @order, $c unless $v{$c};
    my $x = $v{$c}{$m} //= {};
    push @{ $x->{rps} }, $f{rps};
    push @{ $x->{cpu} }, $f{server_ticks} * 1e6 / $hz / $f{completed};
    push @{ $x->{io} }, $f{io_ticks} * 1e6 / $hz / $f{completed};
    push @{ $x->{score} }, $f{server_ticks} / $hz / $f{seconds};
    push @{ $x->{$_} }, $f{$_} for qw(p50_us p99_us client_cpu_cores);
    push @{ $rounds{$c} }, $r->{n} unless exists $pair{$c}{ $r->{n} };
    $pair{$c}{ $r->{n} }{$m} = $f{rps};
    $bytes{$m} = "$f{request_bytes}-byte request, $f{reply_bytes}-byte reply";
  }
  my $out = sprintf "\n%5s %10s %10s %7s %9s %9s %12s %12s %12s %12s %12s\n", 'conns', 'BH req/s',
                    'echo req/s', 'BH/echo', 'BH cpu', 'echo cpu', 'I/O thread', 'server',
                    'BH p50/p99', 'echo p50/p99', 'client';
  $out .= sprintf "%5s %10s %10s %7s %9s %9s %12s %12s %12s %12s %12s\n", '', '', '', '', 'us/req',
                  'us/req', 'us/req BH/e', 'cores BH/e', 'us', 'us', 'cores BH/e';
  my %pairs_text;
  for my $c (@order) {
    my (@ratios, @pairs);
    for my $r (@{ $rounds{$c} }) {
      my ($bh, $echo) = @{ $pair{$c}{$r} }{qw(bh echo)};
      die "$path: $c connections, pair $r: no " . (defined $bh ? 'echo' : 'BH') . " run\n"
        unless defined $bh && defined $echo;
      die "$path: $c connections, pair $r: the echo server's req/s is 0\n" unless $echo > 0;
      push @ratios, $bh / $echo;
      push @pairs, sprintf '%d/%d', $bh, $echo;
    }
    $pairs_text{$c} = join ', ', @pairs;
    my $m = sub { my ($mode, $k) = @_; median(@{ $v{$c}{$mode}{$k} }) };
    $out .= sprintf "%5s %10.0f %10.0f %6.0f%% %9.1f %9.1f %12s %12s %12s %12s %12s\n", $c,
                    $m->('bh', 'rps'), $m->('echo', 'rps'), 100 * median(@ratios),
                    $m->('bh', 'cpu'), $m->('echo', 'cpu'),
                    sprintf('%.1f/%.1f', $m->('bh', 'io'), $m->('echo', 'io')),
                    sprintf('%.2f/%.2f', $m->('bh', 'score'), $m->('echo', 'score')),
                    sprintf('%d/%d', $m->('bh', 'p50_us'), $m->('bh', 'p99_us')),
                    sprintf('%d/%d', $m->('echo', 'p50_us'), $m->('echo', 'p99_us')),
                    sprintf('%.2f/%.2f', $m->('bh', 'client_cpu_cores'), $m->('echo', 'client_cpu_cores'));
  }
  $out .= "\nBH: $bytes{bh}; echo: $bytes{echo}.\n"
        . "I/O thread: CPU of the server I/O thread per reply; on a machine with a core to\n"
        . "spare for each server thread it bounds req/s, so echo/BH of it estimates BH/echo there.\n"
        . "server cores: the server CPU time / run time; on a busy machine the BH (3 threads)\n"
        . "gets more CPU than the echo server (1 thread), which can put BH/echo above 100%.\n"
        . "pairs, BH/echo req/s:\n";
  $out .= sprintf "  %5s connections: %s\n", $_, $pairs_text{$_} for @order;
  return $out;
}

# ce_run_line($record_path, users => N, hwm_kb => N, rss_kb => N, logged => N, cpu_us => N) ->
# the line of key=value figures bench ce prints for one customer emulator: its peak RSS per user,
# its transactions per measured second and its dispatch lateness from its end-of-run record
# (postprocess/MIXLOG.md), its CPU microseconds per row over the whole run (cpu_us: user and
# system), and the rows it counted but the mix log lacks.
sub ce_run_line {
  my ($path, %o) = @_;
  for my $k (qw(users hwm_kb rss_kb logged cpu_us)) {
    die "ce-run: --" . ($k =~ s/_/-/r) . ": '" . ($o{$k} // '') . "' is not a whole number\n"
      unless defined $o{$k} && $o{$k} =~ /\A\d+\z/;
  }
  die "ce-run: --users: 0 users\n" unless $o{users} > 0;
  my ($rec, $why) = read_end_record($path);
  die "$path: " . ($why // 'no such record') . "\n" unless $rec;
  for my $k (qw(measured_s measured_transactions errors rows dispatch_lateness_p50_us
                dispatch_lateness_p99_us)) {
    die "$path: no $k\n" unless defined $rec->{$k};
    die "$path: $k: '$rec->{$k}' is not a number\n" unless $rec->{$k} =~ $NUMBER;
  }
  my $secs = $rec->{measured_s};
  my $tps = $secs > 0 ? sprintf('%.1f', $rec->{measured_transactions} / $secs) : '0.0';
  my $cpu = $rec->{rows} > 0 ? sprintf('%.2f', $o{cpu_us} / $rec->{rows}) : '-';
  return sprintf "users=%d hwm_kb=%d rss_kb=%d kib_per_user=%.1f tps=%s measured_s=%.1f errors=%s "
               . "rows_lost=%d lateness_p50_us=%s lateness_p99_us=%s cpu_us_per_row=%s\n",
                 $o{users}, $o{hwm_kb}, $o{rss_kb}, $o{hwm_kb} / $o{users}, $tps, $secs,
                 $rec->{errors}, $rec->{rows} - $o{logged}, $rec->{dispatch_lateness_p50_us},
                 $rec->{dispatch_lateness_p99_us}, $cpu;
}

# mee_mix_figures($mix_log) -> "TR MF TR/s p99_wait_us p99_resp_us": of a market emulator's mix
# log, the Trade-Result and Market-Feed rows with outcome ok, the Trade-Results sent per second
# leaving out the first and last 5 s of sends (the processing delay's ramp; the whole span when
# it is 10 s or less), and the 99th percentiles (nearest rank) of wait_us and response_us over
# the TR and MF rows ('-' without any).
sub mee_mix_figures {
  my ($path) = @_;
  open my $fh, '<', $path or die "$path: $!\n";
  my (%col, $tr, $mf, @sends, @wait, @resp);
  ($tr, $mf) = (0, 0);
  while (my $line = <$fh>) {
    chomp $line;
    next if $line =~ /\A#/;
    my @f = split /,/, $line, -1;
    if (!%col) {
      %col = map { $f[$_] => $_ } 0 .. $#f;
      for my $c (qw(start_us code outcome response_us wait_us)) {
        die "$path:$.: the header has no column $c\n" unless defined $col{$c};
      }
      next;
    }
    my $code = $f[ $col{code} ] // '';
    next unless $code eq 'TR' || $code eq 'MF';
    my %v = map { ($_ => $f[ $col{$_} ]) } qw(start_us response_us wait_us);
    for my $c (keys %v) {
      die "$path:$.: $c: '" . ($v{$c} // '') . "' is not a number\n"
        unless defined $v{$c} && $v{$c} =~ $NUMBER;
    }
    my $ok = ($f[ $col{outcome} ] // '') eq 'ok';
    if ($code eq 'TR') { $tr++ if $ok; push @sends, $v{start_us} } else { $mf++ if $ok }
    push @wait, $v{wait_us};
    push @resp, $v{response_us};
  }
  die "$path: no header line\n" unless %col;
  my $rate = 0;
  if (@sends) {
    my ($min, $max) = (min(@sends), max(@sends));
    my ($lo, $hi) = ($min + 5e6, $max - 5e6);
    ($lo, $hi) = ($min, $max) if $hi <= $lo;
    $rate = sprintf '%.0f', (grep { $_ >= $lo && $_ <= $hi } @sends) / (($hi - $lo) / 1e6) if $hi > $lo;
  }
  my $p99 = sub { nearest_rank([sort { $a <=> $b } @_], 99) // '-' };
  return join(' ', $tr, $mf, $rate, $p99->(@wait), $p99->(@resp)) . "\n";
}

1;
