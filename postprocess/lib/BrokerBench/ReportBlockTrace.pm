package BrokerBench::ReportBlockTrace;
# The report's "Block trace" section (BlockTrace.pm's figures): per traced host, the data
# device's requests in the measurement interval by size and kind beside the TPC-E I/O study's
# Table 2, the 8 KB blocks read once, the read-reuse and write-after-read distances, the
# sequential share, and the trace's counts against the device's own counters.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Format qw(pct);
use BrokerBench::BlockTrace qw(%STUDY);

our @EXPORT_OK = qw(block_trace_section);

my $MIB = 1048576;

sub count_pct { sprintf('%d (%s)', $_[0], pct($_[1])) }
sub secs { defined $_[0] ? sprintf($_[0] < 10 ? '%.2f s' : '%.0f s', $_[0]) : '-' }
sub study_pct { sprintf('%.2f %%', $_[0]) }

sub block_trace_section {
  my ($r) = @_;
  my $bt = $r->{block_trace} // {};
  my @blocks;
  push @blocks, { t => 'p', text => 'Not traced: ' . ($bt->{why} // '?') . '.' }
    unless @{ $bt->{hosts} // [] };
  push @blocks, host_blocks($_) for @{ $bt->{hosts} // [] };
  push @blocks, { t => 'p', text => 'Every request the kernel issued to the database\'s data '
                  . 'device (the tracepoint block:block_rq_issue, recorded by perf on the '
                  . 'database\'s host from the run\'s start: controller/block-trace; the rows '
                  . 'in sys/<host>/block-trace.csv.gz), cut to the measurement interval by its '
                  . 'wall-clock times. A block is 8 KB of the device (sector / 16), so a larger '
                  . 'request touches several; a block\'s read-reuse distance is the time from one '
                  . 'read of it to the next, its write-after-read distance the time from a read '
                  . 'to the first write after it, both inside the MI (medians within 0.1 %). '
                  . 'Sequential: a read or write that starts where the read or write before it '
                  . 'ended. Flushes, discards and empty pre-flush writes (an fsync with no data '
                  . 'to write: the block layer issues a flush for it, and /proc/diskstats counts '
                  . 'it as a write of 0 bytes) are counted apart. The TPC-E I/O study (Chen et '
                  . 'al.) traced its data devices with the database\'s memory at 8 % of its '
                  . 'size: 90.69 % reads, 9.31 % writes, 98.97 % of requests 8 KB, 92 % of the '
                  . '8 KB blocks read once, no read reuse under about 60 s, and about 60 s from a '
                  . 'page\'s read to its write-back.' } if grep { !$_->{why} } @{ $bt->{hosts} // [] };
  return { id => 'block-trace', title => 'Block trace', blocks => \@blocks };
}

sub host_blocks {
  my ($h) = @_;
  my $dev = ($h->{device} // '?') . ' (' . ($h->{major_minor} // '?') . ')';
  return ({ t => 'p', text => "Host $h->{host}, $dev: not traced: $h->{why}." }) if $h->{why};
  my $q = $h->{requests};
  my $part = ($h->{disk} // '') ne ($h->{device} // '')
    ? ", the partition's requests of $h->{disk} (sectors from $h->{first_sector})" : '';
  my @blocks = ({ t => 'p', text => sprintf('Host %s, the data device %s%s: %d requests in the '
                                            . 'measurement interval, over %s of its %s (%.1f %%).',
                                            $h->{host}, $dev, $part,
                                            $q->{reads} + $q->{writes} + $q->{flushes}
                                            + $q->{discards} + $q->{other}
                                            + $q->{empty_flush_writes},
                                            secs($h->{covered_s}), secs($h->{mi_s}),
                                            $h->{covered_pct} // 0) });
  my @rows = map {
    [$_->{size}, count_pct($_->{reads}, $_->{reads_pct}), count_pct($_->{writes}, $_->{writes_pct}),
     count_pct($_->{total}, $_->{total_pct}), $_->{size} eq '8 KB' ? study_pct($STUDY{kb8_pct}) : '-']
  } @{ $h->{sizes} };
  push @rows, ['All', count_pct($q->{reads}, $h->{read_pct}), count_pct($q->{writes}, $h->{write_pct}),
               count_pct($q->{reads} + $q->{writes}, $q->{reads} + $q->{writes} ? 100 : undef),
               study_pct($STUDY{read_pct}) . ' / ' . study_pct($STUDY{write_pct})];
  push @blocks, { t => 'table', head => ['Request size (the study\'s Table 2)', 'Reads',
                                         'Writes', 'Both', 'Study'],
                  align => [qw(l r r r r)], rows => \@rows };
  push @blocks, { t => 'p', text => 'The sizes seen most: ' . join('; ', map {
    sprintf('%s KB %d (%s: %d reads, %d writes)', $_->{kb}, $_->{requests}, pct($_->{pct}),
            $_->{reads}, $_->{writes}) } @{ $h->{top_sizes} }) . '. Apart from them: '
    . "$q->{flushes} flushes, $q->{empty_flush_writes} empty pre-flush writes, $q->{discards} "
    . "discards, $q->{other} other requests." };
  my ($ru, $wr) = @$h{qw(read_reuse write_after_read)};
  my @dist = map {
    my $i = $_;
    [$ru->{buckets}[$i]{bucket}, count_pct($ru->{buckets}[$i]{count}, $ru->{buckets}[$i]{pct}),
     count_pct($wr->{buckets}[$i]{count}, $wr->{buckets}[$i]{pct})]
  } 0 .. $#{ $ru->{buckets} };
  push @dist, ['Median', secs($ru->{median_s}), secs($wr->{median_s})],
              ['Study', 'none under about 60 s', 'about 60 s'];
  push @blocks, { t => 'kv', rows => [
    ['8 KB blocks read', sprintf('%d, of which read exactly once %d (%s; the study: %d %%)',
                                 $h->{blocks_read}, $h->{blocks_read_once},
                                 pct($h->{read_once_pct}), $STUDY{read_once_pct})],
    ['Sequential requests', sprintf('%s (reads %s, writes %s)', pct($h->{sequential_pct}),
                                    pct($h->{sequential_reads_pct}),
                                    pct($h->{sequential_writes_pct}))],
    ['Block writes after a read', sprintf('%d of %d block writes (the others: no read of the '
                                          . 'block in the MI since its last write)',
                                          $wr->{n}, $h->{block_writes})] ] },
    { t => 'table', head => ['Distance', "Read-reuse ($ru->{n} re-reads)",
                             "Write-after-read ($wr->{n} writes)"],
      align => [qw(l r r)], rows => \@dist };
  if (my $d = $h->{diskstats}) {
    my $k = $h->{check};
    push @blocks, { t => 'p', text => sprintf(
      'Against the device\'s counters (/proc/diskstats, Device I/O) over the same %.0f s: the '
      . 'trace has %d of its %d reads (%s) and %d of its %d writes (%s; %d of them empty '
      . 'pre-flush writes), %.1f of its %.1f MiB read (%s) and %.1f of its %.1f MiB written '
      . '(%s).', $d->{seconds}, $k->{reads}, $d->{reads}, pct($d->{trace_reads_pct}),
      $k->{writes}, $d->{writes}, pct($d->{trace_writes_pct}), $k->{empty_writes}, $k->{read_bytes} / $MIB, $d->{read_bytes} / $MIB,
      pct($d->{trace_read_bytes_pct}), $k->{write_bytes} / $MIB, $d->{write_bytes} / $MIB,
      pct($d->{trace_write_bytes_pct})) };
  }
  my @notes;
  push @notes, "The trace stopped at its limit of $h->{max_requests} requests: the figures cover "
               . 'only the part of the MI before it.' if ($h->{limit_reached} // '') eq 'yes';
  push @notes, "perf stopped before the run's end: $h->{stopped_early}." if $h->{stopped_early};
  push @notes, "perf lost $h->{lost} events (its buffers were full): the figures miss them."
    if $h->{lost};
  push @notes, "$h->{reissued} requests of the whole trace were handed back by the driver and "
               . 'issued again: counted once.' if $h->{reissued};
  push @notes, "$h->{unparsed} lines of perf's output were not understood and are left out."
    if $h->{unparsed};
  push @notes, "$h->{out_of_order} rows were earlier than the row before them."
    if $h->{out_of_order};
  my $step = ($h->{clock_offset_end_us} // 0) - ($h->{clock_offset_us} // 0);
  push @notes, sprintf('The wall clock moved %.1f ms against the monotonic one while tracing: '
                       . 'the times are off by up to that much.', $step / 1000)
    if abs($step) > 1000;
  push @blocks, { t => 'list', items => \@notes } if @notes;
  return @blocks;
}

1;
