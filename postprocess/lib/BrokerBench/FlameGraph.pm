package BrokerBench::FlameGraph;
# A flame graph from `perf script` output, in two steps: collapse_perf folds each sample's call
# stack into one line ("comm;outermost;...;innermost", counted), and flame_svg draws the folded
# stacks: one rectangle per frame, as wide as the samples under it, callers below callees, the
# process names at the root. Each rectangle carries a <title> (its name, samples and share), so a
# browser shows it on hovering. Widths are what matters; the left-to-right order is alphabetical
# and means nothing. No state; plain functions.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(max sum0);

our @EXPORT_OK = qw(collapse_perf folded_text flame_svg);

# One frame line of perf script: address, symbol (+0xoffset), (object file).
my $FRAME = qr/\A\s+[0-9a-fA-F]+\s+(.*?)\s+\((.*)\)\s*\z/;
# A sample's first line: comm (which may hold spaces), pid[/tid], [cpu], time: ...
my $HEADER = qr/\A(\S.*?)\s+\d+(?:\/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:/;

# The name of a frame: the symbol without its offset; an unknown symbol by its object file
# ([libc.so.6]); kernel frames marked _[k]. ';' would split the folded line: it becomes ':'.
sub frame_name {
  my ($sym, $dso) = @_;
  $sym =~ s/\+0x[0-9a-fA-F]+\z//;
  if ($sym eq '[unknown]' && $dso ne '[unknown]') {
    $sym = '[' . ($dso =~ s{.*/}{}r) . ']';
  }
  $sym .= '_[k]' if $dso =~ /\A\[kernel\./;
  return $sym =~ tr/;/:/r;
}

# collapse_perf($fh) -> (\%samples_of_stack, $bad_headers): reads perf script's default output
# (a header line per sample, its frames innermost first, a blank line). A header that is not
# understood is counted, and its frames are skipped.
sub collapse_perf {
  my ($fh) = @_;
  my (%count, $comm, @frames);
  my $bad = 0;
  my $skipping = 0;
  my $flush = sub {
    $count{ join(';', $comm, reverse @frames) }++ if defined $comm;
    ($comm, @frames) = ();
  };
  while (my $line = <$fh>) {
    $line =~ s/\r?\n\z//;
    if ($line =~ /\A\s*\z/) {
      $flush->();
      $skipping = 0;
    } elsif ($line =~ /\A\s/) {
      push @frames, frame_name($1, $2) if defined $comm && $line =~ $FRAME;
    } elsif (!$skipping) {
      $flush->();
      if ($line =~ $HEADER) {
        $comm = $1 =~ tr/;/:/r;
      } else {
        $bad++;
        $skipping = 1;
      }
    }
  }
  $flush->();
  return (\%count, $bad);
}

# folded_text(\%samples_of_stack) -> "stack samples\n" lines, sorted by stack.
sub folded_text {
  my ($count) = @_;
  return join('', map { "$_ $count->{$_}\n" } sort keys %$count);
}

sub xml_escape {
  my ($s) = @_;
  $s =~ s/&/&amp;/g;
  $s =~ s/</&lt;/g;
  $s =~ s/>/&gt;/g;
  $s =~ s/"/&quot;/g;
  return $s;
}

# A warm colour from the name, the same for the same name in every graph; kernel frames orange.
sub colour {
  my ($name) = @_;
  my $h = 0;
  $h = ($h * 31 + ord) % 65521 for split //, $name;
  return sprintf('rgb(%d,%d,%d)', 230, 110 + $h % 60, 40 + $h % 30) if $name =~ /_\[k\]\z/;
  return sprintf('rgb(%d,%d,%d)', 205 + $h % 50, 60 + ($h >> 3) % 170, 40 + ($h >> 7) % 50);
}

# flame_svg(\%samples_of_stack, title => TEXT, width => PIXELS) -> the SVG document. Frames
# narrower than half a pixel are left out, with everything above them.
sub flame_svg {
  my ($count, %o) = @_;
  my $width = $o{width} // 1200;
  my ($pad, $row, $top) = (10, 16, 44);
  my $total = sum0(values %$count);
  # The call tree: a node is [samples, {child name => node}].
  my $root = [0, {}];
  for my $stack (keys %$count) {
    my $node = $root;
    $node->[0] += $count->{$stack};
    for my $name (split /;/, $stack) {
      $node = $node->[1]{$name} //= [0, {}];
      $node->[0] += $count->{$stack};
    }
  }
  my $px = $total ? ($width - 2 * $pad) / $total : 0;
  my @rects;    # [depth, x (samples), samples, name]
  my $walk;
  $walk = sub {
    no warnings 'recursion';    # as deep as the deepest stack: hundreds of frames, not more
    my ($name, $node, $depth, $x) = @_;
    return if $node->[0] * $px < 0.5;
    push @rects, [$depth, $x, $node->[0], $name];
    for my $child (sort keys %{ $node->[1] }) {
      $walk->($child, $node->[1]{$child}, $depth + 1, $x);
      $x += $node->[1]{$child}[0];
    }
  };
  $walk->('all', $root, 0, 0) if $total;
  my $depths = @rects ? 1 + max(map { $_->[0] } @rects) : 1;
  my $height = $top + $depths * $row + $pad;
  my $svg = qq{<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n}
    . qq{<svg xmlns="http://www.w3.org/2000/svg" width="$width" height="$height" }
    . qq{viewBox="0 0 $width $height" font-family="monospace" font-size="12">\n}
    . qq{<rect x="0" y="0" width="$width" height="$height" fill="#f8f8f0"/>\n}
    . qq{<text x="} . ($width / 2) . qq{" y="20" text-anchor="middle" font-size="15">}
    . xml_escape($o{title} // 'Flame graph') . "</text>\n"
    . qq{<text x="$pad" y="36" fill="#555">$total samples; hover over a frame for its name }
    . "and share; callers below, callees above</text>\n";
  for my $r (@rects) {
    my ($depth, $x, $n, $name) = @$r;
    my ($rx, $rw) = map { sprintf('%.1f', $_) } $pad + $x * $px, $n * $px;
    my $y = $height - $pad - ($depth + 1) * $row;
    my $label = sprintf('%s (%d sample%s, %.2f %%)', $name, $n, $n == 1 ? '' : 's',
                        100 * $n / $total);
    $svg .= '<g><title>' . xml_escape($label) . "</title>"
      . qq{<rect x="$rx" y="$y" width="$rw" height="} . ($row - 1) . qq{" fill="}
      . colour($name) . qq{" rx="2"/>};
    my $chars = int(($n * $px - 6) / 7);
    if ($chars >= 3) {
      my $text = length $name > $chars ? substr($name, 0, $chars - 2) . '..' : $name;
      $svg .= '<text x="' . sprintf('%.1f', $rx + 3) . '" y="' . ($y + $row - 4) . '">'
        . xml_escape($text) . '</text>';
    }
    $svg .= "</g>\n";
  }
  return $svg . "</svg>\n";
}

1;
