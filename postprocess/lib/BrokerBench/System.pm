package BrokerBench::System;
# The hosts' side of the run: each host's CPU, disk, memory and network samples
# (sys/<host>/sysstat.csv) averaged over the measurement interval, and the CPU profile's files
# (profile/<host>/). Where the CPU went per process group is Cpu.pm's.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Stats qw(mean);
use BrokerBench::Csv qw(read_csv);
use BrokerBench::Format qw(is_number);
use BrokerBench::Result qw(mi_ok);

our @EXPORT_OK = qw(profile system_stats);

# --- profile (profile/<host>/, brokerbench run --profile) ------------------------------------

# $r->{profile} = { asked, hosts => [{ host, status (profile.txt's first line), svg, folded }] }.
sub profile {
  my ($r) = @_;
  my $p = { asked => ($r->{settings}{profile} // '') eq '1' ? 1 : 0, hosts => [] };
  $r->{profile} = $p;
  for my $dir (sort grep { -d } glob("$r->{results_dir}/profile/*")) {
    my ($host) = $dir =~ m{/profile/([^/]+)\z};
    my $h = { host => $host, status => 'the profiler left no profile.txt (it was stopped, or '
                                       . "died: see profile/$host/profile.log)" };
    if (open my $fh, '<', "$dir/profile.txt") {
      my $line = <$fh>;
      $h->{status} = $line =~ s/\s+\z//r if defined $line && $line =~ /\S/;
    }
    $h->{svg} = "profile/$host/flamegraph.svg" if -s "$dir/flamegraph.svg";
    $h->{folded} = "profile/$host/profile.folded" if -s "$dir/profile.folded";
    push @{ $p->{hosts} }, $h;
  }
}

# --- system (sys/<host>/sysstat.csv) ---------------------------------------------------------

my @SYS_COLS = qw(cpu_user_pct cpu_system_pct cpu_iowait_pct cpu_idle_pct disk_read_kb_s
                  disk_write_kb_s);
# Columns bb-cpu-sampler added later, at the end: a file without them (an older kit's) is read
# without memory and network figures.
my @SYS_MORE = qw(mem_used_kb mem_cached_kb mem_free_kb net_rx_kb_s net_tx_kb_s);

sub system_stats {
  my ($r) = @_;
  my $sys = { hosts => [] };
  $r->{system} = $sys;
  my @paths = sort glob("$r->{results_dir}/sys/*/sysstat.csv");
  unless (@paths) {
    $sys->{why} = 'no sys/<host>/sysstat.csv';
    return;
  }
  for my $path (@paths) {
    my ($host) = $path =~ m{/sys/([^/]+)/sysstat\.csv\z};
    my $rel = "sys/$host/sysstat.csv";
    my ($csv, $err) = read_csv($path);
    if (!$csv) {
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other',
                         reason => $err =~ s/\A\Q$r->{results_dir}\E\///r, text => '' });
      next;
    }
    my @missing = grep { my $c = $_; !grep { $_ eq $c } @{ $csv->{header} } } ('time_us', @SYS_COLS);
    if (@missing) {
      $r->{_problem}->({ file => $rel, line => 1, kind => 'other',
                         reason => 'missing columns: ' . join(', ', @missing), text => '' });
      next;
    }
    my %has = map { $_ => 1 } @{ $csv->{header} };
    my @more = (grep { !$has{$_} } @SYS_MORE) ? () : @SYS_MORE;
    my @cols = ('time_us', @SYS_COLS, @more);
    my @samples;
    my $line = 1;
    for my $row (@{ $csv->{rows} }) {
      $line++;
      my @bad = grep { !is_number($row->{$_}) } @cols;
      if (@bad) {
        $r->{_problem}->({ file => $rel, line => $line, kind => 'other',
                           reason => "not a number in $bad[0]: '$row->{$bad[0]}'",
                           text => join(',', map { $row->{$_} } @{ $csv->{header} }) });
        next;
      }
      push @samples, [map { $row->{$_} + 0 } @cols];
    }
    my $h = { host => $host, samples => scalar @samples, memory_and_network => @more ? 1 : 0 };
    my @in = mi_ok($r)
      ? grep { $_->[0] >= $r->{mi}{start_us} && $_->[0] <= $r->{mi}{end_us} } @samples
      : ();
    $h->{samples_in_mi} = scalar @in;
    if (@in) {
      for my $i (1 .. $#cols) {
        $h->{avg}{ $cols[$i] } = mean([map { $_->[$i] } @in]);
      }
    }
    push @{ $sys->{hosts} }, $h;
    $r->{_series}{sys}{$host} = \@samples;
  }
  $sys->{columns} = [@SYS_COLS, @SYS_MORE];
}

1;
