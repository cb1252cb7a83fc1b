# report.html rendered by headless Chromium: the page draws, and every plot in it decodes.
# Skips when Chromium is not installed (./brokerbench setup installs it).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run run_report T0);
use BrokerBench::Gnuplot qw(png_ok);
use MIME::Base64 qw(encode_base64 decode_base64);

my ($chromium) = grep { -x } map { "$_/chromium" } split /:/, $ENV{PATH} // '';
plan skip_all => 'chromium is not installed (apt-get install chromium, or ./brokerbench setup)'
  unless $chromium;

my $S = 1_000_000;
my $d = tmpdir();
valid_run($d);
write_file("$d/sys/hostA/sysstat.csv",
  "time_us,cpu_user_pct,cpu_system_pct,cpu_iowait_pct,cpu_idle_pct,disk_read_kb_s,disk_write_kb_s,"
  . "mem_used_kb,mem_cached_kb,mem_free_kb,net_rx_kb_s,net_tx_kb_s\n"
  . join('', map { join(',', T0 + $_ * $S, 20 + $_ % 7, 5, 1, 74 - $_ % 7, 10, 300,
                        2_000_000 + 1000 * $_, 1_000_000, 500_000 - 1000 * $_, 5 + $_ % 3, 7) . "\n" }
             0 .. 70));
is(run_report('--quiet', $d)->{rc}, 0, 'bb-report wrote the report');

my $profile = tmpdir();
# Runs Chromium headless on a local file; returns its stdout.
sub chromium {
  my ($page, @args) = @_;
  my $out = "$profile/stdout";
  my @cmd = ('timeout', 60, $chromium, '--headless', '--no-sandbox', '--disable-gpu',
             "--user-data-dir=$profile", @args, "file://$page");
  my $pid = fork // die "fork: $!";
  if (!$pid) {
    open STDOUT, '>', $out or exit 127;
    open STDERR, '>', '/dev/null' or exit 127;
    exec(@cmd) or exit 127;
  }
  waitpid $pid, 0;
  open my $fh, '<', $out or return '';
  local $/;
  return scalar <$fh>;
}

my $html = do { open my $fh, '<', "$d/report.html" or die; local $/; <$fh> };
my @imgs = $html =~ /<img [^>]*src="data:image\/png;base64,/g;
is(scalar @imgs, 9, 'nine plots inline as data: URIs');
unlike($html, qr/<script/i, 'the report itself needs no JavaScript');

# The screenshot: the page renders to a PNG of a reasonable size.
my $shot = "$d/screenshot.png";
chromium("$d/report.html", "--screenshot=$shot", '--window-size=1200,3000');
ok(png_ok($shot), 'the screenshot is a PNG');
cmp_ok(-s $shot // 0, '>', 100_000, 'and not a blank page (over 100 KB)');

# Every <img> decodes: a copy of the page with a small script that, at the load event (which
# waits for every image), draws each image on a canvas and counts the images that have dark
# pixels (axes, text, curves); a broken image cannot be drawn (InvalidStateError) and counts
# 0. All of it runs synchronously in the load handler, so the answer, "decoded/total" in the
# DOM, is there before --dump-dom prints the page; a slow machine only delays the load.
# Chromium is asked up to three times, in case it is killed by the timeout on a busy machine.
sub decoded {
  my ($page_html, $name) = @_;
  my $script = <<'JS';
<script>window.addEventListener("load", function () {
  var im = Array.prototype.slice.call(document.images), n = 0;
  im.forEach(function (i) {
    try {
      var c = document.createElement("canvas");
      c.width = i.naturalWidth; c.height = i.naturalHeight;
      var x = c.getContext("2d");
      x.drawImage(i, 0, 0);
      var d = x.getImageData(0, 0, c.width, c.height).data, dark = 0;
      for (var k = 0; k < d.length; k += 4) if (d[k + 3] > 0 && d[k] < 128) dark++;
      if (dark > 100) n++;
    } catch (e) {}
  });
  document.body.setAttribute("data-decoded", n + "/" + im.length);
});</script>
JS
  (my $copy = $page_html) =~ s{</body>}{$script</body>};
  write_file("$d/$name", $copy);
  for my $attempt (1 .. 3) {
    my $dom = chromium("$d/$name", '--virtual-time-budget=10000', '--dump-dom');
    return $1 if $dom =~ /data-decoded="(\d+\/\d+)"/;
    diag("attempt $attempt: Chromium gave no answer");
  }
  return 'no answer';
}

is(decoded($html, 'check.html'), '9/9', 'all nine images decode and show a plot in Chromium');
# The check itself can fail: a page whose first image is cut after 200 bytes (its PNG header
# and size are intact, the pixels are not).
my ($first) = $html =~ m{data:image/png;base64,([A-Za-z0-9+/=]+)};
my $cut = encode_base64(substr(decode_base64($first), 0, 200), '');
my $broken = $html =~ s{\Q$first\E}{$cut}r;
is(decoded($broken, 'broken.html'), '8/9', 'a cut image is caught');

# The comparison's page (bb-compare): the run with itself, its two plots.
is(run_report('bb-compare', '--quiet', '--out', "$d/compare", $d, $d)->{rc}, 0, 'bb-compare wrote its page');
my $cmp = do { open my $fh, '<', "$d/compare/compare.html" or die; local $/; <$fh> };
unlike($cmp, qr/<script/i, 'the comparison needs no JavaScript');
is(decoded($cmp, 'check-compare.html'), '2/2', 'both of its images decode and show a plot');

done_testing();
