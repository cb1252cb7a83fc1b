package BrokerBench::Format;
# Numbers and times as the post-processor reads and writes them: times in microseconds as UTC
# text, run.conf's UTC times back to microseconds, the reported throughput's truncation, the
# test for a finite number, the seconds and percentages the verdict's texts show, and the
# report's small formatters.
use strict;
use warnings;
use Exporter 'import';
use POSIX qw(floor strftime);
use Time::Local qw(timegm);

our @EXPORT_OK = qw(utc_time utc_us floor2 is_number fmt_s fmt_pct f3 f1 pct unknown duration
                    plural);

my $US = 1_000_000;

sub utc_time {
  my ($us) = @_;
  return 'unknown' unless defined $us;
  my $s = floor($us / $US);
  return strftime('%Y-%m-%d %H:%M:%S', gmtime $s) . sprintf('.%03d UTC', ($us - $s * $US) / 1000);
}

# Rounds down to 2 decimals (clause 6.7.1: the reported throughput is truncated). The small
# epsilon keeps 1.95 from becoming 1.94 through binary representation.
sub floor2 {
  my ($x) = @_;
  return floor($x * 100 + 1e-9) / 100;
}

# A finite number: '1e999' or 400 digits would be inf, and inf - inf is NaN.
sub is_number {
  return 0 unless defined $_[0] && $_[0] =~ /\A-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\z/;
  my $x = $_[0] + 0;
  return $x - $x == 0;
}

# 'YYYY-MM-DDTHH:MM:SSZ' (UTC) -> microseconds since the epoch, or undef.
sub utc_us {
  my ($text) = @_;
  return undef unless defined $text
    && $text =~ /\A(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z\z/;
  my $s = eval { timegm($6, $5, $4, $3, $2 - 1, $1) };
  return defined $s ? $s * $US : undef;
}

sub fmt_s {
  my ($s) = @_;
  return 'unknown' unless defined $s;
  return sprintf('%.0f s', $s) if abs($s - int($s)) < 0.05 || $s >= 100;
  return sprintf('%.1f s', $s);
}

sub fmt_pct {
  my ($x) = @_;
  my $p = 100 * $x;
  return sprintf('%.0f %%', $p) if abs($p - int($p + 0.5)) < 0.05;
  return sprintf('%.1f %%', $p);
}

# --- small formatters ----------------------------------------------------------------------

sub f3 { defined $_[0] ? sprintf('%.3f', $_[0]) : '-' }
sub f1 { defined $_[0] ? sprintf('%.1f', $_[0]) : '-' }
sub pct { defined $_[0] ? sprintf('%.1f %%', $_[0]) : '-' }
sub unknown { !defined $_[0] ? 'unknown' : $_[0] eq '' ? '(empty)' : $_[0] }

sub duration {
  my ($s) = @_;
  return 'unknown' unless defined $s;
  my $txt = sprintf('%.1f s', $s);
  if ($s >= 60) {
    my $h = floor($s / 3600);
    my $m = floor(($s - 3600 * $h) / 60);
    my $r = $s - 3600 * $h - 60 * $m;
    $txt .= $h ? sprintf(' (%d h %02d min %02.0f s)', $h, $m, $r)
               : sprintf(' (%d min %02.0f s)', $m, $r);
  }
  return $txt;
}

sub plural { my ($n, $w) = @_; return "$n $w" . ($n == 1 ? '' : 's') }

1;
