# The flame graph of brokerbench run --profile: perf script text, written here by hand in the
# format perf 6.1 prints, folded into stacks and drawn as an SVG whose rectangles are as wide as
# their samples; and bb-flamegraph end to end.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BrokerBench::FlameGraph qw(collapse_perf folded_text flame_svg);
use BBTest qw(tmpdir write_file slurp);

# Five samples: three of a backend executing (two in the same stack), one in the kernel under a
# backend's send, one of a process whose name has a space and whose symbols are unknown; then a
# header perf never writes, whose frames must not count.
my $PERF = <<'PERF';
postgres 40211 [000] 48027.573514:   10101010 cpu-clock:ppp: 
	    55d0c0a1b2c3 hash_search_with_hash_value+0x43 (/usr/lib/postgresql/15/bin/postgres)
	    55d0c0a00100 ExecScan+0x10 (/usr/lib/postgresql/15/bin/postgres)
	    55d0c09f0000 PostgresMain+0x7ff (/usr/lib/postgresql/15/bin/postgres)

postgres 40211 [001] 48027.583514:   10101010 cpu-clock:ppp: 
	    55d0c0a1b2c3 hash_search_with_hash_value+0x43 (/usr/lib/postgresql/15/bin/postgres)
	    55d0c0a00100 ExecScan+0x10 (/usr/lib/postgresql/15/bin/postgres)
	    55d0c09f0000 PostgresMain+0x7ff (/usr/lib/postgresql/15/bin/postgres)

postgres 40212/40212 [001] 48027.593514:   10101010 cpu-clock:ppp: 
	    55d0c0a00200 ExecScan+0x20 (/usr/lib/postgresql/15/bin/postgres)
	    55d0c09f0000 PostgresMain+0x7ff (/usr/lib/postgresql/15/bin/postgres)

postgres 40212 [000] 48027.603514:   10101010 cpu-clock:ppp: 
	ffffffff81a00000 tcp_sendmsg+0x1a ([kernel.kallsyms])
	    7f00aa000000 __libc_send+0x5 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	    55d0c09f0000 PostgresMain+0x7ff (/usr/lib/postgresql/15/bin/postgres)

[pango] FcInit 15986 [001] 48027.577482:   10101010 cpu-clock:ppp: 
	           2a430 [unknown] (/usr/lib/x86_64-linux-gnu/libfontconfig.so.1.12.0)
	               0 [unknown] ([unknown])

this is not a header
	    55d0c0a00100 ExecScan+0x10 (/usr/lib/postgresql/15/bin/postgres)

PERF

my $FOLDED = <<'FOLDED';
[pango] FcInit;[unknown];[libfontconfig.so.1.12.0] 1
postgres;PostgresMain;ExecScan 1
postgres;PostgresMain;ExecScan;hash_search_with_hash_value 2
postgres;PostgresMain;__libc_send;tcp_sendmsg_[k] 1
FOLDED

subtest 'perf script text folds into stacks' => sub {
  open my $fh, '<', \$PERF or die;
  my ($count, $bad) = collapse_perf($fh);
  is(folded_text($count), $FOLDED, 'one line per distinct stack, outermost first, counted');
  is($bad, 1, 'the header perf never writes is counted, and its frame is not');
  my $crlf = $PERF =~ s/\n/\r\n/gr;
  open $fh, '<', \$crlf or die;
  is(folded_text((collapse_perf($fh))[0]), $FOLDED, 'CRLF lines fold the same');
  open $fh, '<', \"" or die;
  is(folded_text((collapse_perf($fh))[0]), '', 'no input, no stacks');
};

# The rectangles of an SVG: { title => [x, y, width] }.
sub rects {
  my ($svg) = @_;
  my %r;
  while ($svg =~ m{<g><title>([^<]*)</title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"}g) {
    $r{$1} = [$2, $3, $4];
  }
  return \%r;
}

subtest 'the SVG: widths by samples, callers below callees, names escaped' => sub {
  open my $fh, '<', \$PERF or die;
  my ($count) = collapse_perf($fh);
  $count->{'postgres;a<b>&"c"'} = 5;    # 10 samples in all now
  my $svg = flame_svg($count, title => 'CPU <of> db1', width => 1020);
  my $r = rects($svg);
  is(scalar keys %$r, 11, 'one rectangle per frame of the call tree (all, 2 roots, 8 frames)')
    or diag explain $r;
  my $all = $r->{'all (10 samples, 100.00 %)'};
  ok($all, 'the root holds every sample') or diag explain [sort keys %$r];
  is($all->[2], '1000.0', 'and spans the width less the margins');
  my $pg = $r->{'postgres (9 samples, 90.00 %)'};
  is($pg->[2], '900.0', 'postgres: 9 of 10 samples wide');
  my $scan = $r->{'ExecScan (3 samples, 30.00 %)'};
  my $hash = $r->{'hash_search_with_hash_value (2 samples, 20.00 %)'};
  is($hash->[2], '200.0', 'a leaf: 2 samples wide');
  is($hash->[1], $scan->[1] - 16, 'a callee sits one row above its caller');
  is($hash->[0], $scan->[0], 'and starts where its caller starts');
  ok($r->{'tcp_sendmsg_[k] (1 sample, 10.00 %)'}, 'kernel frames are marked, one sample singular');
  ok($r->{'a&lt;b&gt;&amp;&quot;c&quot; (5 samples, 50.00 %)'}, 'a name is XML-escaped');
  like($svg, qr{>CPU &lt;of&gt; db1</text>}, 'so is the title');
  unlike($svg =~ s/&(?:amp|lt|gt|quot);//gr, qr/&/, 'no bare ampersand anywhere');
  my $opened = () = $svg =~ /<g>/g;
  my $closed = () = $svg =~ m{</g>}g;
  is($opened, $closed, 'every group is closed');
  like($svg, qr{\A<\?xml[^>]*\?>\n<svg [^>]*>.*</svg>\n\z}s, 'one svg element');
  my $narrow = flame_svg({ 'a;b' => 1, 'c' => 100_000 }, width => 1000);
  ok(!grep({ /\Ab \(/ } keys %{ rects($narrow) }), 'a frame narrower than half a pixel is left out');
  like(flame_svg({}), qr{0 samples}, 'an empty profile still makes an SVG');
};

subtest 'bb-flamegraph: stdin to SVG and folded file' => sub {
  my $dir = tmpdir();
  write_file("$dir/perf.txt", $PERF);
  my $script = "$FindBin::RealBin/../bb-flamegraph";
  my $rc = system("$^X $script --folded $dir/f.txt --title T <$dir/perf.txt >$dir/g.svg 2>$dir/err");
  is($rc >> 8, 0, 'exit 0');
  is(slurp("$dir/f.txt"), $FOLDED, 'the folded stacks');
  like(slurp("$dir/g.svg"), qr{<title>all \(5 samples, 100\.00 %\)</title>}, 'the SVG');
  like(slurp("$dir/err"), qr/1 sample headers not understood/, 'the bad header is said');
  $rc = system("$^X $script --width 12 </dev/null >/dev/null 2>$dir/err");
  is($rc >> 8, 2, 'a bad width exits 2');
  like(slurp("$dir/err"), qr/--width: '12' is not a number of pixels/, 'naming the value');
};

done_testing();
