package BrokerBench::Gnuplot;
# Running gnuplot for the report's plots (Plots.pm), the comparison's (ComparePlots.pm) and the
# sweep's (Sweep.pm): the PNG terminal this gnuplot has, gnuplot under a timeout, the head
# every script starts with, one script run with its PNG checked, and the PNG check itself.
# A plot is a script NAME.gp in a data directory beside its data, writing ../NAME.png, so a
# user can re-plot by hand.
use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(png_ok terminal run_gnuplot write_file gp_quote gp_head render);

our $GNUPLOT_TIMEOUT_S = 60;

# png_ok($path) -> true when the file exists, is not empty and starts with the PNG signature.
sub png_ok {
  my ($path) = @_;
  return 0 unless -s $path;
  open my $fh, '<:raw', $path or return 0;
  my $n = read $fh, my $sig, 8;
  close $fh;
  return $n == 8 && $sig eq "\x89PNG\r\n\x1a\n";
}

# The PNG terminal: pngcairo when this gnuplot has it, else the libgd png terminal.
sub terminal {
  my ($gnuplot) = @_;
  my ($rc) = run_gnuplot($gnuplot, '.', ['-e', 'set terminal pngcairo']);
  return $rc == 0 ? 'pngcairo' : 'png';
}

# Runs gnuplot with the arguments in $dir, under the timeout; returns ($exit_code, $output).
sub run_gnuplot {
  my ($gnuplot, $dir, $args) = @_;
  my $pid = open(my $ph, '-|');
  return (127, "cannot fork: $!") unless defined $pid;
  if (!$pid) {
    open STDERR, '>&', \*STDOUT;
    chdir $dir or do { print "cannot cd to $dir: $!\n"; exit 127 };
    exec('timeout', $GNUPLOT_TIMEOUT_S, $gnuplot, @$args)
      or do { print "cannot run timeout $gnuplot: $!\n"; exit 127 };
  }
  local $/;
  my $text = <$ph> // '';
  close $ph;
  my $rc = $? == -1 ? 127 : ($? & 127 ? 128 + ($? & 127) : $? >> 8);
  return ($rc, $text);
}

sub write_file {
  my ($path, $text) = @_;
  open my $fh, '>', $path or die "cannot write $path: $!\n";
  print {$fh} $text;
  close $fh or die "cannot write $path: $!\n";
}

sub gp_quote {
  my ($s) = @_;
  $s =~ s/'/''/g;
  return "'$s'";
}

# The head of every script. $ctx: { term (terminal's) }. Options: size ('W,H'), key (gnuplot's
# key position; none without), panels (a multiplot: no title here, the caller sets it).
sub gp_head {
  my ($ctx, $name, $title, %o) = @_;
  my $size = $o{size} // '1000,560';
  my $font = $ctx->{term} eq 'pngcairo' ? " font ',10'" : '';
  return "# $title\n# Re-plot by hand: cd plots/data && gnuplot $name.gp\n"
    . "set terminal $ctx->{term} size $size noenhanced$font\n"
    . "set output '../$name.png'\n"
    . ($o{panels} ? '' : 'set title ' . gp_quote($title) . "\n")
    . "set grid\n" . (defined $o{key} ? "set key $o{key}\n" : '');
}

# Writes the script $ctx->{data}/NAME.gp, runs it and checks $ctx->{out}/plots/NAME.png.
# $ctx: { data, out, gnuplot }. Returns { status => written|failed, file, script, note }.
sub render {
  my ($ctx, $name, $gp, $note) = @_;
  write_file("$ctx->{data}/$name.gp", $gp);
  my $png = "$ctx->{out}/plots/$name.png";
  my ($rc, $out) = run_gnuplot($ctx->{gnuplot}, $ctx->{data}, ["$name.gp"]);
  my $res = { file => "plots/$name.png", script => "plots/data/$name.gp" };
  $res->{note} = $note if $note;
  if ($rc == 124) {
    return { %$res, status => 'failed',
             note => "gnuplot did not finish within $GNUPLOT_TIMEOUT_S s" };
  }
  if ($rc != 0) {
    my $msg = $out =~ s/\s+/ /gr;
    $msg = substr($msg, 0, 300) . '...' if length $msg > 300;
    return { %$res, status => 'failed', note => "gnuplot exited with $rc: $msg" };
  }
  return { %$res, status => 'failed', note => "gnuplot wrote no valid PNG" } unless png_ok($png);
  return { %$res, status => 'written' };
}

1;
