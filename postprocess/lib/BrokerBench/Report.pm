package BrokerBench::Report;
# Writes report.txt, report.html and results.json from an analysis result. The text and the
# HTML are rendered (Render.pm) from one list of sections (build_sections), so they always say
# the same thing; the HTML adds the plots (inline, base64) and readme.txt. The sections are
# ReportRun.pm's (what was measured and judged), ReportResources.pm's (where the time
# went), ReportDatabase.pm's, ReportDeviceIo.pm's and ReportBlockTrace.pm's; the plots, input
# problems and settings are here.
use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use BrokerBench::Plots qw(@PLOTS);
use BrokerBench::Analysis ();
use BrokerBench::Format qw(unknown plural);
use BrokerBench::Render qw(render_text render_html write_atomic);
use BrokerBench::ReportRun qw(transactions_section input_variants_section errors_section
                              reconciliation_section throughput_section interval_section
                              verdict_section compliance_section run_warnings);
use BrokerBench::ReportResources qw(cpu_section waits_section statements_section
                                    profile_section system_section bh_section mee_section);
use BrokerBench::ReportDatabase qw(database_section server_text memory_text);
use BrokerBench::ReportDeviceIo qw(device_io_section);
use BrokerBench::ReportBlockTrace qw(block_trace_section);
use BrokerBench::ReportDurability qw(durability_section durability_line);

our @EXPORT_OK = qw(build_sections write_reports json_data);

# --- the sections -----------------------------------------------------------------------------

# Blocks: { t => 'p', text } | { t => 'kv', rows => [[k, v]] } | { t => 'list', items, ordered }
#         | { t => 'table', head, align ('l'/'r' per column), rows, foot }
#         | { t => 'pre', text } | { t => 'plot', name, title, status, note, file }
#         | { t => 'headline', lines }
sub build_sections {
  my ($r, $plots) = @_;
  my @s;
  push @s, { id => 'top', title => 'brokerbench report', blocks => [
    { t => 'headline', lines => headline_lines($r) },
    { t => 'kv', rows => [['Results directory', $r->{results_dir}],
                          ['Generated', $r->{generated_utc}],
                          ['PostgreSQL', server_text($r)],
                          ['Database memory', memory_text($r->{settings} // {})],
                          ['Comment', unknown($r->{settings}{comment})]] },
    { t => 'p', text => $r->{statement} },
  ] };
  # What a reader looks at first: the verdict and the plots; the settings last.
  push @s, verdict_section($r);
  push @s, $plots ? plots_section($r, $plots)
                 : { id => 'plots', title => 'Plots',
                     blocks => [{ t => 'p', text => 'Not made (bb-report --no-plots).' }] };
  push @s, durability_section($r);
  push @s, transactions_section($r);
  push @s, input_variants_section($r);
  push @s, errors_section($r);
  push @s, reconciliation_section($r);
  push @s, throughput_section($r);
  push @s, interval_section($r);
  push @s, compliance_section($r);
  push @s, cpu_section($r);
  push @s, waits_section($r);
  push @s, statements_section($r);
  push @s, profile_section($r);
  push @s, database_section($r);
  push @s, device_io_section($r);
  push @s, block_trace_section($r);
  push @s, system_section($r);
  push @s, bh_section($r);
  push @s, mee_section($r);
  push @s, problems_section($r);
  push @s, settings_section($r);
  return \@s;
}

sub headline_lines {
  my ($r) = @_;
  my @lines = ($r->{trtps}{headline}, $r->{verdict}{headline});
  my $durability = durability_line($r->{durability});
  push @lines, $durability if defined $durability;
  push @lines, map { "Warning: $_" } run_warnings($r);
  return \@lines;
}
sub plots_section {
  my ($r, $plots) = @_;
  my @blocks;
  for my $p (@PLOTS) {
    my $res = $plots->{ $p->[0] } // { status => 'failed', note => 'not made' };
    push @blocks, { t => 'plot', name => $p->[0], title => $p->[1], %$res };
  }
  # A durability run's (Plots.pm, DurabilityPlot.pm), its title in its result.
  push @blocks, { t => 'plot', name => 'durability', %{ $plots->{durability} } }
    if $plots->{durability};
  push @blocks, { t => 'p', text => 'Each plot has its data and gnuplot script in plots/data/; '
                                    . 're-plot with: cd plots/data && gnuplot NAME.gp' };
  return { id => 'plots', title => 'Plots', blocks => \@blocks };
}

sub problems_section {
  my ($r) = @_;
  my @blocks;
  if (!$r->{problems_total}) {
    push @blocks, { t => 'p', text => 'None: every input line was read.' };
  } else {
    push @blocks, { t => 'p', text => sprintf('%s (%d in the mix logs, which make the run '
                                              . 'invalid; the rest were processed):',
                                              plural($r->{problems_total}, 'problem'),
                                              $r->{mix_problems}) };
    push @blocks, { t => 'list', items => [map { problem_text($_) } @{ $r->{problems} }] };
    my $unlisted = $r->{problems_total} - @{ $r->{problems} };
    push @blocks, { t => 'p', text => "$unlisted more are counted but not listed (at most "
                                      . "$BrokerBench::Analysis::MAX_PROBLEMS_PER_FILE per file)." }
      if $unlisted > 0;
  }
  return { id => 'problems', title => 'Input problems', blocks => \@blocks };
}

sub problem_text {
  my ($p) = @_;
  my $t = "$p->{file}:$p->{line}: $p->{reason}";
  $t .= " ('$p->{text}')" if defined $p->{text} && $p->{text} ne '';
  return $t;
}

my @SETTING_KEYS = qw(format customers scale_factor initial_trade_days users ramp_up_s
                      duration_s pacing_s seed seed_source emulator_seeds db_workers frames
                      transport db_name comment profile block_trace started_utc
                      finished_utc kit_commit command status);

sub settings_section {
  my ($r) = @_;
  my $s = $r->{settings};
  my %known = map { $_ => 1 } @SETTING_KEYS;
  my @rows = ((map { [$_, unknown($s->{$_})] } @SETTING_KEYS),
              (map { [$_, $s->{$_}] } grep { !$known{$_} } sort keys %$s));
  return { id => 'settings', title => 'Settings (run.conf)',
           blocks => [{ t => 'kv', rows => \@rows }] };
}
# --- JSON and files --------------------------------------------------------------------------

# json_data($result, $plots) -> the plain data of results.json (no internal keys).
sub json_data {
  my ($r, $plots) = @_;
  # The verdict holds the reasons and notes: not twice.
  my %d = map { $_ => $r->{$_} } grep { !/\A_/ && !/\A(?:reasons|notes)\z/ } keys %$r;
  $d{plots} = $plots if $plots;
  $d{headline} = { trtps => $r->{trtps}{headline}, verdict => $r->{verdict}{headline},
                   warnings => [run_warnings($r)] };
  return \%d;
}
# write_reports($result, $plots) -> path of report.txt. Dies with a message naming the file
# when one cannot be written.
sub write_reports {
  my ($r, $plots) = @_;
  my $dir = $r->{results_dir};
  my $sections = build_sections($r, $plots);
  # Inputs are read and written as bytes, so UTF-8 in run.conf or readme.txt passes through.
  write_atomic("$dir/report.txt", render_text($sections));
  my $readme;
  if (open my $fh, '<:raw', "$dir/readme.txt") {
    local $/;
    $readme = <$fh>;
    close $fh;
  }
  write_atomic("$dir/report.html",
               render_html($sections, results_dir => $dir, readme => $readme));
  my $json = JSON::PP->new->canonical->pretty;
  write_atomic("$dir/results.json", $json->encode(json_data($r, $plots)));
  return "$dir/report.txt";
}

1;
