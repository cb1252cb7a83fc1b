# The mix log reader: bad lines are reported as FILE:LINE with a reason and the text, the
# rest of the file is read, and counts come out right; unknown versions are refused.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(row marker write_log write_log_v2 write_file tmpdir valid_run analyze_dir T0);
use BrokerBench::MixLog qw(read_mix_log);
use BrokerBench::MixLogFormat qw(read_markers);
use BrokerBench::Aggregates qw(new_aggregates variant_counts);
use BrokerBench::Spec qw(@ALL_CODES @OUTCOMES);

# The reader keeps no rows, only aggregates (Aggregates.pm): these tests read what the rows
# added to them. Every row lies in this MI, so that each one's input variant is counted.
sub read_one {
  my ($path, $role) = @_;
  my @problems;
  my $g = new_aggregates({ mi_start_us => 0, mi_end_us => 9e18, steady_cuts => [],
                           cpu_cuts => [] });
  my $sum = read_mix_log(path => $path, rel => 'x.csv', role => $role, host => 'h',
                         aggregates => $g, problem => sub { push @problems, shift });
  return ($sum, $g, \@problems);
}

# What the aggregates hold of a code: { rows, outcomes => { outcome => rows }, retries,
# variants => { inputs text (or '(not logged)') => valid rows } }.
sub of_code {
  my ($g, $code) = @_;
  my %c = (rows => 0, retries => 0, outcomes => {}, variants => {});
  for my $x (grep { $g->{x_code}[$_] eq $code } 0 .. $#{ $g->{x_code} }) {
    my $n = ($g->{cnt}[2 * $x] // 0) + ($g->{cnt}[2 * $x + 1] // 0);
    $c{rows} += $n;
    $c{outcomes}{ $OUTCOMES[ $g->{x_oi}[$x] ] } += $n;
    $c{retries} += ($g->{retries}[2 * $x] // 0) + ($g->{retries}[2 * $x + 1] // 0);
  }
  my $per = variant_counts($g);
  for my $id (grep { $per->[$_] } 1 .. $#{ $g->{v_code} }) {
    next unless $ALL_CODES[ $g->{v_code}[$id] ] eq $code;
    $c{variants}{ $g->{v_text}[$id] // '(not logged)' } += $per->[$id];
  }
  return \%c;
}

my $dir = tmpdir();

subtest 'corrupt lines are reported and skipped, the rest is read' => sub {
  my $path = "$dir/bad.csv";
  write_file($path, join("\n",
    '# brokerbench mix log v1',
    'start_us,code,spec_status,outcome,response_us,retries,user,wait_us',
    row(T0, 'TO', 'ok', 1000, retries => 2),              # 3 good
    join(',', T0, 'TO', 0, 'ok', 1000, 0, 1),              # 4 seven fields
    row(T0, 'TS', 'ok', 'abc'),                            # 5 not a number
    row(T0, 'XX', 'ok', 1000),                             # 6 unknown code
    row(T0, 'TS', 'weird', 1000),                          # 7 unknown outcome
    row(T0, 'TR', 'ok', 1000),                             # 8 a market emulator code
    marker(T0, 'START') =~ s/,,,,,,\z/,1,,,,,/r,           # 9 marker with a value
    row(T0 + 5, 'MW', 'rollback', 2000),                   # 10 good
    '',                                                    # 11 empty
    '1763726401000000,TS,0,o',                             # 12 cut, no newline
  ));
  my ($sum, $store, $p) = read_one($path, 'ce');
  is($sum->{rows}, 2, 'two good rows counted');
  is(scalar @$p, 8, 'eight problems (lines 4-9, 11, 12)');
  my %by_line = map { $_->{line} => $_ } @$p;
  like($by_line{4}{reason}, qr/wrong column count: 7, expected 8/, 'line 4: column count');
  is($by_line{4}{file}, 'x.csv', 'problems name the file');
  like($by_line{5}{reason}, qr/response_us is not a non-negative integer: 'abc'/, 'line 5: field named');
  like($by_line{6}{reason}, qr/unknown code 'XX'/, 'line 6: unknown code');
  like($by_line{7}{reason}, qr/unknown outcome 'weird'/, 'line 7: unknown outcome');
  like($by_line{8}{reason}, qr/TR row in a customer emulator log/, 'line 8: code of the other emulator');
  like($by_line{9}{reason}, qr/START marker with a value/, 'line 9: marker with a value');
  like($by_line{11}{reason}, qr/empty line/, 'line 11: empty');
  like($by_line{12}{reason}, qr/line cut mid-way.*wrong column count: 4/, 'line 12: cut mid-way');
  is($by_line{12}{text}, '1763726401000000,TS,0,o', 'the text of the line is quoted');
  is(scalar @{ $sum->{starts} }, 0, 'the bad marker is not taken');
  is(of_code($store, 'TO')->{rows}, 1, 'one Trade-Order row counted');
  is(of_code($store, 'TO')->{retries}, 2, 'its retries counted');
  is_deeply(of_code($store, 'MW')->{outcomes}, { rollback => 1 },
            'the Market-Watch row counted under its outcome');
  is(of_code($store, 'TS')->{rows}, 0, 'no Trade-Status row from the bad lines');
};

subtest 'a complete last line without a newline is counted and reported' => sub {
  my $path = "$dir/nonl.csv";
  write_file($path, "# brokerbench mix log v1\n"
             . "start_us,code,spec_status,outcome,response_us,retries,user,wait_us\n"
             . row(T0, 'TS', 'ok', 100) . "\n" . row(T0 + 1, 'TS', 'ok', 100));
  my ($sum, undef, $p) = read_one($path, 'ce');
  is($sum->{rows}, 2, 'both rows counted');
  is(scalar @$p, 1, 'one problem');
  like($p->[0]{reason}, qr/no newline at the end of the file/, 'it says why');
  is($p->[0]{line}, 4, 'on line 4');
};

subtest 'CRLF line ends are read' => sub {
  my $path = "$dir/crlf.csv";
  write_file($path, "# brokerbench mix log v1\r\n"
             . "start_us,code,spec_status,outcome,response_us,retries,user,wait_us\r\n"
             . row(T0, 'TS', 'ok', 100) . "\r\n" . marker(T0 + 9, 'STOP') . "\r\n");
  my ($sum, undef, $p) = read_one($path, 'ce');
  is($sum->{rows}, 1, 'the row counted');
  is_deeply($sum->{stops}, [T0 + 9], 'the marker read');
  is(scalar @$p, 0, 'no problem');
};

subtest 'signed and unsigned fields' => sub {
  my $path = "$dir/signs.csv";
  write_log($path,
    row(T0, 'DM', 'ok', 1000, user => -1),           # the CE's DM and TC rows have user -1
    row(T0, 'TC', 'ok', 1000, user => -1),
    row(T0, 'TS', 'ok', -5));                        # a negative response time is not
  my ($sum, undef, $p) = read_one($path, 'ce');
  is($sum->{rows}, 2, 'user -1 is accepted');
  is(scalar @$p, 1, 'one problem');
  like($p->[0]{reason}, qr/response_us is negative: '-5'/, 'a negative response time is named');
};

# The reader's first match takes unsigned fields and no retries only (the common row); a sign
# or retries send a row to the second, and both must count it alike.
subtest 'a sign in status, user or wait, and retries: every such row counted' => sub {
  my $path = "$dir/signs-ce.csv";
  write_log_v2($path,
    row(T0, 'TS', 'invalid', 100, inputs => ''),                  # status -911, retries 0
    row(T0 + 1, 'TS', 'invalid', 200, retries => 2, inputs => ''),
    row(T0 + 2, 'TS', 'ok', 300, user => -7, inputs => ''),
    row(T0 + 3, 'TS', 'ok', 400, retries => 1, user => -7, inputs => ''),
    row(T0 + 4, 'TS', 'ok', 500, user => '-', inputs => ''),      # a sign alone: refused
    row(T0 + 5, 'TS', 'ok', 600, status => '-', inputs => ''));
  my ($sum, $g, $p) = read_one($path, 'ce');
  is($sum->{rows}, 4, 'the four good rows counted');
  my $c = of_code($g, 'TS');
  is_deeply($c->{outcomes}, { invalid => 2, ok => 2 }, 'by outcome');
  is($c->{retries}, 3, 'retries of both kinds of row');
  is_deeply([map { $_->{reason} } @$p], ["user is not an integer: '-'",
                                         "spec_status is not an integer: '-'"],
            'a sign without digits is named');
  my $mee = "$dir/signs-mee.csv";
  write_log_v2($mee, row(T0, 'TR', 'ok', 700, wait => -300, inputs => ''),
                     row(T0 + 1, 'TR', 'ok', 800, wait => 300, inputs => ''),
                     row(T0 + 2, 'TR', 'ok', 900, wait => '-', inputs => ''));
  ($sum, $g, $p) = read_one($mee, 'mee');
  is($sum->{rows}, 2, 'a negative wait is a row');
  is_deeply([map { $_->{reason} } @$p], ["wait_us is not an integer: '-'"], 'wait - named');
};

subtest 'unknown version and wrong headers refuse the file' => sub {
  write_file("$dir/v4.csv", "# brokerbench mix log v4\nstart_us,code\n" . row(T0, 'TS', 'ok', 1) . "\n");
  my ($sum, $store, $p) = read_one("$dir/v4.csv", 'ce');
  is($sum->{rows}, 0, 'no row read from a v4 file');
  like($sum->{refused}, qr/unknown version v4/, 'refused for its version');
  is($p->[0]{line}, 1, 'reported on line 1');
  like($p->[0]{reason}, qr/unknown mix log version 'v4' \(this reader knows v1, v2 and v3\); file skipped/,
       'the reason names the version and the known ones');

  write_file("$dir/v2cols.csv", "# brokerbench mix log v2\n"
             . "start_us,code,spec_status,outcome,response_us,retries,user,wait_us\n");
  ($sum, $store, $p) = read_one("$dir/v2cols.csv", 'ce');
  like($p->[0]{reason}, qr/unexpected column line \(v2 has '.*,wait_us,inputs'\)/,
       'a v2 header with the v1 column line is refused, naming the v2 columns');

  write_file("$dir/junk.csv", "hello\n");
  ($sum, $store, $p) = read_one("$dir/junk.csv", 'ce');
  like($p->[0]{reason}, qr/not a brokerbench mix log/, 'a file of another kind');

  write_file("$dir/cols.csv", "# brokerbench mix log v1\nstart_us,code,outcome\n");
  ($sum, $store, $p) = read_one("$dir/cols.csv", 'ce');
  is($p->[0]{line}, 2, 'a wrong column line is reported on line 2');

  write_file("$dir/empty.csv", '');
  ($sum, $store, $p) = read_one("$dir/empty.csv", 'ce');
  like($p->[0]{reason}, qr/empty file/, 'an empty file');
};

subtest 'v2: the inputs column is read, checked and interned per code' => sub {
  my $path = "$dir/v2.csv";
  write_log_v2($path,
    marker(T0, 'START', 2),
    row(T0 + 1, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo'),      # 4 good
    row(T0 + 2, 'TO', 'rollback', 100, inputs => 'TMB q800 name tp margin lifo rb'),  # 5 good
    row(T0 + 3, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo'),      # 6 good, same text
    row(T0 + 4, 'CP', 'ok', 100, inputs => 'tax hist'),                # 7 good
    row(T0 + 5, 'SD', 'ok', 100, inputs => ''),                        # 8 good: no flag set
    row(T0 + 6, 'BV', 'ok', 100, inputs => ''),                        # 9 good
    row(T0 + 7, 'DM', 'ok', 100, user => -1, inputs => ''),            # 10 good
    row(T0 + 8, 'TO', 'ok', 100, inputs => 'TLB q200 cheap'),          # 11 unknown token
    row(T0 + 9, 'TO', 'ok', 100, inputs => 'TLB name'),                # 12 no quantity
    row(T0 + 10, 'TO', 'ok', 100, inputs => 'TLB TMB q100'),           # 13 two trade types
    row(T0 + 11, 'MW', 'ok', 100, inputs => ''),                       # 14 no mode
    row(T0 + 12, 'TS', 'ok', 100, inputs => 'lob'),                    # 15 TS carries none
    row(T0 + 13, 'CP', 'ok', 100, inputs => 'tax  hist'),              # 16 double space
    row(T0 + 14, 'CP', 'ok', 100, inputs => 'tax hist hist'),          # 17 twice
    row(T0 + 15, 'CP', 'ok', 100, inputs => 'tax;hist'),               # 18 bad character
    row(T0 + 16, 'TO', 'ok', 100, inputs => 'TLB q200 ' . ('x' x 40)), # 19 too long
    row(T0 + 17, 'TS', 'ok', 100),                                     # 20 eight columns
    row(T0 + 18, 'SD', 'ok', 100, inputs => 'lob') . "\r",             # 21 good (CRLF)
    marker(T0 + 20, 'STOP', 2));
  my ($sum, $store, $p) = read_one($path, 'ce');
  is($sum->{version}, 'v2', 'read as v2');
  is($sum->{rows}, 8, 'eight good rows');
  is_deeply($sum->{starts}, [T0], 'the v2 START marker (seven empty fields)');
  is_deeply($sum->{stops}, [T0 + 20], 'the v2 STOP marker');
  my %by_line = map { $_->{line} => $_->{reason} } @$p;
  is(scalar @$p, 10, 'ten problems (lines 11-20)') or diag explain \%by_line;
  like($by_line{11}, qr/inputs: unknown token 'cheap' for TO/, 'an unknown token is named');
  like($by_line{12}, qr/inputs of TO: none of q100, q200, q400, q800 in 'TLB name'/, 'a missing choice');
  like($by_line{13}, qr/inputs of TO: more than one of TMB, TMS, TLB, TLS, TSL/, 'two of one choice');
  like($by_line{14}, qr/inputs of MW: none of industry, watch, acct \(empty\)/, 'an empty MW variant');
  like($by_line{15}, qr/inputs: TS rows carry none, but this one has 'lob'/, 'inputs on a TS row');
  like($by_line{16}, qr/empty token/, 'a double space');
  like($by_line{17}, qr/token 'hist' twice/, 'a token twice');
  like($by_line{18}, qr/inputs is not tokens of letters and digits separated by spaces: 'tax;hist'/,
       'a bad character');
  like($by_line{19}, qr/inputs is longer than 39 characters/, 'too long');
  like($by_line{20}, qr/wrong column count: 8, expected 9/, 'a v1 row in a v2 file');
  my $to = of_code($store, 'TO');
  is($to->{rows}, 3, 'three Trade-Orders counted');
  is_deeply($to->{variants}, { 'TLB q200 name lifo' => 2, 'TMB q800 name tp margin lifo rb' => 1 },
            'each row counted under its inputs text');
  is(scalar(grep { defined $store->{v_text}[$_] && $ALL_CODES[ $store->{v_code}[$_] ] eq 'TO' }
            1 .. $#{ $store->{v_code} }), 2, 'a text seen twice is kept once');
  is_deeply(of_code($store, 'SD')->{variants}, { '' => 1, lob => 1 },
            'SD: no flag, and access_lob from a CRLF line');
  is(of_code($store, 'TS')->{rows}, 0, 'no Trade-Status row from the bad lines');
};

subtest 'v3: the trade id column is read past the inputs, checked, and kept out of the key' => sub {
  my $path = "$dir/v3.csv";
  my $cols = 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs,trade_id';
  write_file($path, join('', "# brokerbench mix log v3\n$cols\n", map { "$_\n" }
    marker(T0, 'START', 2) . ',',                                              # 3
    row(T0 + 1, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo') . ',200000000000101',  # 4
    row(T0 + 2, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo') . ',200000000000102',  # 5
    row(T0 + 3, 'TO', 'rollback', 100, inputs => 'TMB q100 rb') . ',',        # 6 good: no id
    row(T0 + 4, 'BV', 'ok', 100, inputs => '') . ',',                          # 7 good
    row(T0 + 5, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo') . ',12x',    # 8 bad id
    row(T0 + 6, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo'),             # 9 nine columns
    row(T0 + 7, 'TO', 'ok', 100, inputs => 'TLB q200 name lifo') . ',0',      # 10 id 0
    row(T0 + 8, 'TS', 'ok', 100, user => -1, inputs => '') . ',',             # 11 good (signed)
    marker(T0 + 20, 'STOP', 2) . ','));
  my ($sum, $store, $p) = read_one($path, 'ce');
  is($sum->{version}, 'v3', 'read as v3');
  is($sum->{rows}, 5, 'five good rows');
  is_deeply([$sum->{starts}, $sum->{stops}], [[T0], [T0 + 20]], 'the v3 markers (eight commas)');
  my %by_line = map { $_->{line} => $_->{reason} } @$p;
  is(scalar @$p, 3, 'three problems') or diag explain \%by_line;
  like($by_line{8}, qr/trade_id is not a non-negative integer: '12x'/, 'a bad trade id named');
  like($by_line{9}, qr/wrong column count: 9, expected 10/, 'a v2 row in a v3 file');
  like($by_line{10}, qr/trade_id/, 'a trade id of 0 named');
  my $to = of_code($store, 'TO');
  is($to->{rows}, 3, 'three Trade-Orders');
  is_deeply($to->{variants}, { 'TLB q200 name lifo' => 2, 'TMB q100 rb' => 1 },
            'the variant is the inputs alone, whatever the trade id');

  my $mee = "$dir/v3-mee.csv";
  write_file($mee, join('', "# brokerbench mix log v3\n$cols\n",
    map { "$_\n" } row(T0, 'TR', 'ok', 700, wait => -300, inputs => '') . ',200000000000101',
                  row(T0 + 1, 'MF', 'ok', 700, inputs => '') . ','));
  ($sum, $store, $p) = read_one($mee, 'mee');
  is($sum->{rows}, 2, 'a market emulator\'s TR with its trade id and an MF without');
  is(scalar @$p, 0, 'no problem') or diag explain $p;
};

subtest 'v1 rows are read as before, with no inputs' => sub {
  my $path = "$dir/v1.csv";
  write_log($path, row(T0, 'TO', 'ok', 100), row(T0 + 1, 'TR', 'ok', 100, wait => 7));
  my ($sum, $store, $p) = read_one($path, 'ce');
  is($sum->{version}, 'v1', 'read as v1');
  is(scalar @$p, 1, 'the TR row is the only problem');
  is($sum->{rows}, 1, 'the Trade-Order read');
  is_deeply(of_code($store, 'TO')->{variants}, { '(not logged)' => 1 }, 'its inputs: not logged');
};

subtest 'problems reach the verdict and the other files are still used' => sub {
  my $d = tmpdir();
  my $run = valid_run($d);
  write_file("$d/ce/hostC/mix-ce-77.csv", "# brokerbench mix log v9\n");
  open my $fh, '>>', $run->{ce} or die;
  print {$fh} "garbage\n";
  close $fh;
  my $r = analyze_dir($d);
  is($r->{mix_problems}, 2, 'two problems: the v9 file and the garbage line');
  ok(!$r->{verdict}{valid}, 'INVALID');
  ok((grep { $_->{rule} eq 'input problems' && $_->{text} =~ /2 input problems/ }
      @{ $r->{reasons} }), 'the reason counts the input problems');
  is($r->{transactions}{TS}{count}, 190, 'the good rows of the first log still count');
  my ($p) = grep { $_->{file} =~ /mix-ce-1001/ } @{ $r->{problems} };
  like($p->{line}, qr/\A\d+\z/, 'the garbage line has a line number');
  is($p->{file}, 'ce/hostA/mix-ce-1001.csv', 'files are named relative to the results directory');
};

# The quick look at the markers reads 1 MB blocks: a marker across a block's end, one with
# CRLF, one on a last line without a newline are found; a row or a quoted marker is not one.
subtest 'read_markers' => sub {
  my $path = "$dir/markers.csv";
  my $row = row(T0, 'TS', 'ok', 1000) . "\n";
  my $head = "# brokerbench mix log v1\nstart_us,code,spec_status,outcome,response_us,retries,"
             . "user,wait_us\n" . marker(T0 + 1, 'START') . "\n";
  my $fill = $row x int(((1 << 20) - length($head) - 10) / length $row);
  # A START that begins 10 bytes before the first block's end and ends after it.
  my $pad = 'x' x ((1 << 20) - length($head) - length($fill) - 10 - 1);
  write_file($path, $head . $fill . "$pad\n" . marker(T0 + 2, 'START') . "\n" . $row
                    . marker(T0 + 3, 'STOP') . "\r\n" . "9,TS,START,,,,,\n" . $row
                    . marker(T0 + 4, 'STOP'));
  my $m = read_markers($path);
  is_deeply($m->{starts}, [T0 + 1, T0 + 2], 'the STARTs, one across the block end');
  is_deeply($m->{stops}, [T0 + 3, T0 + 4], 'the STOPs, with CRLF and without a newline');
  my $none = read_markers("$dir/no-such-file.csv");
  is_deeply([$none->{starts}, $none->{stops}], [[], []], 'no file: no markers');
  like($none->{refused}, qr/cannot open/, 'and why');
};

done_testing();
