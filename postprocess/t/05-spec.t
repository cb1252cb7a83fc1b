#!/usr/bin/env perl
# Spec.pm's constants come from spec.json (bb-spec --json, from common/workload/spec.h; the
# ctest spec_json_test keeps the two equal): every type of the mix has its range and limit, every
# input variant names a token the mix log may carry, and a missing or broken spec.json stops
# the post-processor naming the file instead of judging by nothing.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use Test::More;
use BrokerBench::Spec qw(@MIX_CODES %MIX_RANGE %RT_LIMIT @INPUT_VARIANTS %INPUT_CHOICES
                         $TO_ROLLBACK_P @TO_ROLLBACK_RANGE $TRTPS_LOW $TRTPS_HIGH);

is_deeply([sort keys %MIX_RANGE], [sort @MIX_CODES], 'a mix range for each of the ten types');
is_deeply([sort keys %RT_LIMIT],  [sort @MIX_CODES], 'a response-time limit for each of them');
my ($low, $high) = (0, 0);
for my $code (@MIX_CODES) {
  $low  += $MIX_RANGE{$code}[0];
  $high += $MIX_RANGE{$code}[1];
}
ok($low < 100 && $high > 100, "the ranges hold 100 % ($low .. $high)");
is($RT_LIMIT{TS}, 1, 'Trade-Status: 1 s');
is($RT_LIMIT{TR}, 2, 'Trade-Result: 2 s');
is_deeply(\@TO_ROLLBACK_RANGE, [0.94, 1.04], 'the roll-back range');
ok(abs($TO_ROLLBACK_P - 1 / 101) < 1e-12, 'a roll-back is 1 in 101');
is_deeply([$TRTPS_LOW, $TRTPS_HIGH], [0.8, 1.02], 'reported throughput 80 .. 102 % of nominal');
is(scalar @INPUT_VARIANTS, 26, 'twenty-six input variants');
my %choice_token;
for my $code (keys %INPUT_CHOICES) { $choice_token{$code}{$_} = 1 for map { @$_ } @{ $INPUT_CHOICES{$code} } }
my @flags = qw(hist lob tp name margin lifo);
for my $v (@INPUT_VARIANTS) {
  my ($code, $token, $what, $lo, $hi) = @$v;
  ok(($choice_token{$code}{$token} || grep { $_ eq $token } @flags) && $lo < $hi,
     "$code $token ($what): a token of the mix log, $lo .. $hi");
}

# A kit whose spec.json is broken or missing: loading Spec.pm fails, naming the file.
my $kit = tempdir(CLEANUP => 1);
mkdir "$kit/BrokerBench" or die;
copy("$FindBin::Bin/../lib/BrokerBench/Spec.pm", "$kit/BrokerBench/Spec.pm") or die;
my $load = sub { my $out = qx{$^X -I$kit -e 'use BrokerBench::Spec' 2>&1}; ($? >> 8, $out) };
my ($rc, $out) = $load->();
ok($rc != 0 && $out =~ m{cannot read \Q$kit\E/BrokerBench/spec\.json}, 'no spec.json: names it')
  or diag($out);
open(my $fh, '>', "$kit/BrokerBench/spec.json") or die;
print $fh "{\"format\": 1, \"deck\": \n";
close $fh;
($rc, $out) = $load->();
ok($rc != 0 && $out =~ m{spec\.json is not JSON}, 'a broken spec.json: names it') or diag($out);

done_testing();
