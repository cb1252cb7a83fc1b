package BrokerBench::Result;
# What every part of the analysis (Analysis.pm and the modules it calls) shares while it fills
# the one result hash: the verdict's reasons and the notes, whether there is a measurement
# interval.
use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(add_reason add_note mi_ok);

sub add_reason {
  my ($r, $rule, $clause, $text) = @_;
  push @{ $r->{reasons} }, { rule => $rule, clause => $clause, text => $text };
}

sub add_note {
  my ($r, $rule, $text) = @_;
  push @{ $r->{notes} }, { rule => $rule, text => $text };
}

sub mi_ok {
  my ($r) = @_;
  return defined $r->{mi}{start_us} && !$r->{mi}{empty};
}

1;
