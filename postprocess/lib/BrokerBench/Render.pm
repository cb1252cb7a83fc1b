package BrokerBench::Render;
# Renders a list of sections (the report's, Report.pm; the comparison's, CompareReport.pm) as
# fixed-width text and as one self-contained HTML page (plots inline, base64), and writes a
# file whole or not at all. A section is { id, title, blocks }; the blocks are listed at
# Report.pm's build_sections.
use strict;
use warnings;
use Exporter 'import';
use MIME::Base64 qw(encode_base64);
use List::Util qw(max);
use Text::Wrap ();

our @EXPORT_OK = qw(render_text render_html text_table write_atomic);

my $WIDTH = 100;
# --- text -------------------------------------------------------------------------------------

sub wrap {
  my ($text, $indent, $next) = @_;
  local $Text::Wrap::columns  = $WIDTH;
  local $Text::Wrap::huge     = 'overflow';
  local $Text::Wrap::unexpand = 0;
  return Text::Wrap::wrap($indent, $next // $indent, $text) . "\n";
}

sub text_table {
  my ($b) = @_;
  my @all = ($b->{head}, @{ $b->{rows} });
  my @w;
  for my $row (@all) {
    for my $i (0 .. $#$row) {
      my $l = length($row->[$i] // '');
      $w[$i] = $l if !defined $w[$i] || $l > $w[$i];
    }
  }
  my $fmt_row = sub {
    my ($row) = @_;
    my @c;
    for my $i (0 .. $#w) {
      my $v = $row->[$i] // '';
      push @c, ($b->{align}[$i] // 'l') eq 'r' ? sprintf('%*s', $w[$i], $v)
                                               : sprintf('%-*s', $w[$i], $v);
    }
    return ('  ' . join('  ', @c)) =~ s/\s+\z//r . "\n";
  };
  my $rule = '  ' . join('  ', map { '-' x $_ } @w) . "\n";
  my %rule_before = map { $_ => 1 } @{ $b->{rule_before} // [] };
  my %strong = map { $_ => 1 } @{ $b->{strong_rows} // [] };
  my $out = $fmt_row->($b->{head}) . $rule;
  for my $i (0 .. $#{ $b->{rows} }) {
    $out .= $rule if $rule_before{$i};
    # A strong row stands out in plain text by a '>' in the margin.
    $out .= $strong{$i} ? $fmt_row->($b->{rows}[$i]) =~ s/\A  /> /r : $fmt_row->($b->{rows}[$i]);
  }
  return $out;
}

sub render_text {
  my ($sections) = @_;
  my $out = '';
  for my $s (@$sections) {
    if ($s->{id} eq 'top') {
      $out .= "$s->{title}\n" . ('=' x length $s->{title}) . "\n";
    } else {
      $out .= "\n$s->{title}\n" . ('-' x length $s->{title}) . "\n";
    }
    my $first = 1;
    for my $b (@{ $s->{blocks} }) {
      my $t = $b->{t};
      # A blank line between blocks, except between consecutive paragraphs of notes.
      $out .= "\n" unless $first || ($t eq 'plot');
      $first = 0;
      if ($t eq 'p') {
        $out .= wrap($b->{text}, '  ');
      } elsif ($t eq 'headline') {
        $out .= "  $_\n" for @{ $b->{lines} };
      } elsif ($t eq 'kv') {
        my $w = max(map { length $_->[0] } @{ $b->{rows} });
        for my $kv (@{ $b->{rows} }) {
          $out .= wrap(sprintf('%-*s  %s', $w + 1, "$kv->[0]:", $kv->[1] // ''), '  ',
                       ' ' x ($w + 5));
        }
      } elsif ($t eq 'list') {
        my $n = 0;
        for my $item (@{ $b->{items} }) {
          my $mark = $b->{ordered} ? sprintf('%d. ', ++$n) : '- ';
          $out .= wrap($item, "  $mark", ' ' x (2 + length $mark));
        }
      } elsif ($t eq 'table') {
        $out .= text_table($b);
      } elsif ($t eq 'pre') {
        $out .= $b->{text};
      } elsif ($t eq 'plot') {
        my $line = $b->{status} eq 'written' ? "$b->{file}: $b->{title}"
                 : $b->{status} eq 'skipped' ? "$b->{name}.png not written: $b->{note}"
                 : "$b->{name}.png FAILED: $b->{note}";
        $out .= wrap($line, '  - ', '    ');
      }
    }
  }
  return $out;
}

# --- HTML -------------------------------------------------------------------------------------

sub esc {
  my ($s) = @_;
  $s = '' unless defined $s;
  $s =~ s/&/&amp;/g;
  $s =~ s/</&lt;/g;
  $s =~ s/>/&gt;/g;
  $s =~ s/"/&quot;/g;
  return $s;
}

my $CSS = <<'CSS';
body { font-family: sans-serif; max-width: 1150px; margin: 1em auto; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #345; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #bbb; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: .15em .5em; vertical-align: top; }
th { background: #eef2f7; text-align: left; }
td.r { text-align: right; font-family: monospace; }
tr.rule td { border-top: 2px solid #888; }
.headline { font-family: monospace; font-size: 115%; background: #f6f6f6;
            border-left: 4px solid #345; padding: .4em .8em; white-space: pre-wrap; }
.valid { color: #176117; font-weight: bold; }
.invalid { color: #a31515; font-weight: bold; }
.kv th { background: none; border: none; padding-right: 1em; white-space: nowrap; }
.kv td { border: none; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: 85%; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
.fail { color: #a31515; font-weight: bold; }
nav a { margin-right: .8em; }
CSS

sub html_line_class {
  my ($line) = @_;
  return 'invalid' if $line =~ /INVALID|FAILED|n\/a|outside/;
  return 'valid'   if $line =~ /VALID/;
  return '';
}

# render_html($sections, results_dir => DIR (where the plots' files are), readme => TEXT,
# title => TEXT (default: 'brokerbench report: DIR')).
sub render_html {
  my ($sections, %o) = @_;
  my $dir = $o{results_dir};
  my $out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    . '<title>' . esc($o{title} // "brokerbench report: $dir") . "</title>\n<style>\n$CSS"
    . "</style>\n</head>\n<body>\n";
  $out .= '<nav>' . join('', map { '<a href="#' . esc($_->{id}) . '">' . esc($_->{title}) . '</a>' }
                              grep { $_->{id} ne 'top' } @$sections)
          . ($o{readme} ? '<a href="#readme">readme.txt</a>' : '') . "</nav>\n";
  for my $s (@$sections) {
    my $h = $s->{id} eq 'top' ? 'h1' : 'h2';
    $out .= "<section id=\"" . esc($s->{id}) . "\">\n<$h>" . esc($s->{title}) . "</$h>\n";
    for my $b (@{ $s->{blocks} }) {
      my $t = $b->{t};
      if ($t eq 'p') {
        $out .= '<p>' . esc($b->{text}) . "</p>\n";
      } elsif ($t eq 'headline') {
        $out .= '<div class="headline">'
          . join("\n", map { my $c = html_line_class($_);
                             ($c ? "<span class=\"$c\">" : '<span>') . esc($_) . '</span>' }
                 @{ $b->{lines} }) . "</div>\n";
      } elsif ($t eq 'kv') {
        $out .= "<table class=\"kv\">\n"
          . join('', map { '<tr><th>' . esc($_->[0]) . '</th><td>' . esc($_->[1]) . "</td></tr>\n" }
                 @{ $b->{rows} }) . "</table>\n";
      } elsif ($t eq 'list') {
        my $tag = $b->{ordered} ? 'ol' : 'ul';
        $out .= "<$tag>\n" . join('', map { '<li>' . esc($_) . "</li>\n" } @{ $b->{items} }) . "</$tag>\n";
      } elsif ($t eq 'table') {
        my %rule_before = map { $_ => 1 } @{ $b->{rule_before} // [] };
        my %strong = map { $_ => 1 } @{ $b->{strong_rows} // [] };
        $out .= "<table>\n<tr>" . join('', map { '<th>' . esc($_) . '</th>' } @{ $b->{head} }) . "</tr>\n";
        for my $i (0 .. $#{ $b->{rows} }) {
          my $row = $b->{rows}[$i];
          $out .= ($rule_before{$i} ? '<tr class="rule">' : '<tr>');
          for my $j (0 .. $#$row) {
            my $v = $row->[$j];
            my $cls = ($b->{align}[$j] // 'l') eq 'r' ? ' class="r"' : '';
            $cls = ' class="fail"' if defined $v && $v eq 'FAIL';
            $out .= "<td$cls>" . ($strong{$i} ? '<strong>' . esc($v) . '</strong>' : esc($v))
              . '</td>';
          }
          $out .= "</tr>\n";
        }
        $out .= "</table>\n";
      } elsif ($t eq 'pre') {
        $out .= '<pre>' . esc($b->{text}) . "</pre>\n";
      } elsif ($t eq 'plot') {
        $out .= html_plot($b, $dir);
      }
    }
    $out .= "</section>\n";
  }
  if ($o{readme}) {
    $out .= "<section id=\"readme\">\n<h2>readme.txt</h2>\n<pre>" . esc($o{readme}) . "</pre>\n</section>\n";
  }
  $out .= "</body>\n</html>\n";
  return $out;
}

sub html_plot {
  my ($b, $dir) = @_;
  if ($b->{status} ne 'written') {
    my $what = $b->{status} eq 'skipped' ? 'not written' : 'FAILED';
    return '<p>' . esc("$b->{name}.png $what: $b->{note}") . "</p>\n";
  }
  my $path = "$dir/$b->{file}";
  open my $fh, '<:raw', $path or return '<p>' . esc("$b->{file}: cannot read: $!") . "</p>\n";
  local $/;
  my $png = <$fh>;
  close $fh;
  return '<figure><img alt="' . esc($b->{title}) . '" src="data:image/png;base64,'
    . encode_base64($png, '') . '"><figcaption>' . esc("$b->{title} ($b->{file})")
    . "</figcaption></figure>\n";
}

# write_atomic($path, $text): through "$path.tmpPID" and a rename, so a reader never sees half
# a report. When a write fails (a full file system) the temporary file is removed, and it dies
# naming the file and the error.
sub write_atomic {
  my ($path, $text) = @_;
  my $tmp = "$path.tmp$$";
  open my $fh, '>:raw', $tmp or die "cannot write $tmp: $!\n";
  unless ((print {$fh} $text) && close $fh) {
    my $err = $!;
    close $fh;    # when the print failed (closing twice is harmless)
    unlink $tmp;
    die "cannot write $path (through $tmp): $err\n";
  }
  unless (rename $tmp, $path) {
    my $err = $!;
    unlink $tmp;
    die "cannot rename $tmp to $path: $err\n";
  }
}

1;
