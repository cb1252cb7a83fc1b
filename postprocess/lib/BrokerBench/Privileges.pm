package BrokerBench::Privileges;
# The run's role and its optional privileges (db/privileges.csv, written before the run by
# controller/db-privileges): for each one it lacks, the statement an administrator runs to
# grant it and what it gives the report. The rest of the report is complete without them.
# Facts, checked on PostgreSQL 14 to 18: pg_monitor includes pg_read_all_stats and
# pg_read_all_settings; pg_checkpoint exists from 15 (before, CHECKPOINT is a superuser's);
# pg_stat_statements is not a trusted extension, so only a superuser can create it, and
# pg_stat_statements_reset() is a superuser's unless granted.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(read_csv);

our @EXPORT_OK = qw(privileges create_extension_advice quote_ident);

my $FILE = 'db/privileges.csv';
my @FLAGS = qw(superuser pg_read_all_stats pg_monitor pg_read_all_settings pg_checkpoint
               pg_stat_statements_available pg_stat_statements_installed
               pg_stat_statements_preloaded pg_stat_statements_reset);

# A role's name as SQL writes it: in double quotes, each double quote doubled.
sub quote_ident {
  my ($name) = @_;
  (my $q = $name) =~ s/"/""/g;
  return qq{"$q"};
}

# What the Top statements section says when the extension is not in the database: who can
# create it (not a trusted extension: not the database's owner) and what the server needs.
sub create_extension_advice {
  my ($r) = @_;
  my $p = $r->{privileges} // {};
  my $in = defined $p->{database} ? " in the database '$p->{database}'" : ' in the database';
  return "pg_stat_statements is not installed$in: a superuser runs CREATE EXTENSION "
         . 'pg_stat_statements; there (it is not a trusted extension, so the database\'s '
         . "owner cannot), and the server needs shared_preload_libraries = 'pg_stat_statements' "
         . '(a restart) for it to count';
}

# privileges($r): sets $r->{privileges} = { available, why | role, superuser, database,
# database_owner, items => [{ privilege, held (1, 0 or undef: unknown), gives, grant, note }],
# missing => [privilege names] }.
sub privileges {
  my ($r) = @_;
  my $p = { available => 0 };
  $r->{privileges} = $p;
  my $path = "$r->{results_dir}/$FILE";
  unless (-e $path) {
    $p->{why} = "$FILE is missing (a run made before the kit recorded the role's privileges, or "
                . 'one whose query failed: db/snapshot.err)';
    return;
  }
  my ($csv, $err) = read_csv($path);
  if (!$csv || !@{ $csv->{rows} }) {
    $err = $csv ? "$FILE has no row (the query failed: db/snapshot.err)"
                : $err =~ s/\A\Q$r->{results_dir}\E\///r;
    $r->{_problem}->({ file => $FILE, line => 0, kind => 'other', reason => $err, text => '' });
    $p->{why} = $err;
    return;
  }
  my $row = $csv->{rows}[0];
  my %f;
  for my $k (@FLAGS) {
    my $v = $row->{$k} // '';
    if ($v !~ /\A[tf]?\z/) {
      $r->{_problem}->({ file => $FILE, line => 2, kind => 'other', text => '',
                         reason => "$k is not t, f or empty: '$v' (taken as unknown)" });
      $v = '';
    }
    $f{$k} = $v eq 't' ? 1 : $v eq 'f' ? 0 : undef;
  }
  my $role = $row->{role} // '';
  if ($role eq '') {
    $r->{_problem}->({ file => $FILE, line => 2, kind => 'other', text => '',
                       reason => 'role is empty' });
    $p->{why} = "$FILE names no role";
    return;
  }
  my $q = quote_ident($role);
  %$p = (available => 1, role => $role, superuser => $f{superuser}, database => $row->{database},
         database_owner => $row->{database_owner});
  my @items;
  push @items, {
    privilege => 'pg_read_all_stats (or pg_monitor)',
    held      => $f{pg_read_all_stats},
    grant     => "GRANT pg_monitor TO $q;",
    gives     => 'the wait events and statements of every role\'s sessions (pg_stat_activity, '
                 . 'pg_stat_statements); without it those of other roles, autovacuum\'s among '
                 . 'them, show no wait event and <insufficient privilege> for their text, so '
                 . "the waits and top statements count only the role's own sessions",
  };
  push @items, {
    privilege => 'pg_read_all_settings (pg_monitor includes it)',
    held      => $f{pg_read_all_settings},
    grant     => "GRANT pg_read_all_settings TO $q;",
    gives     => 'every setting in db/settings.csv and this report; without it pg_settings hides '
                 . 'some twenty, shared_preload_libraries, config_file and data_directory among '
                 . 'them',
  };
  my $ext = { privilege => 'the pg_stat_statements extension in the database',
              held => $f{pg_stat_statements_installed}, gives => 'the Top statements section' };
  if (defined $f{pg_stat_statements_available} && !$f{pg_stat_statements_available}) {
    $ext->{grant} = 'the server has not got its files: install the contrib modules of this '
                    . 'PostgreSQL (Debian: the postgresql-contrib package), then a superuser runs '
                    . 'CREATE EXTENSION pg_stat_statements; in the database';
  } else {
    $ext->{grant} = 'CREATE EXTENSION pg_stat_statements; in the database, by a superuser (it is '
                    . "not a trusted extension: the database's owner cannot), with "
                    . "shared_preload_libraries = 'pg_stat_statements' in the server's "
                    . 'configuration (a restart)';
  }
  push @items, $ext;
  if ($f{pg_stat_statements_installed}) {
    push @items, {
      privilege => 'pg_stat_statements in shared_preload_libraries',
      held      => $f{pg_stat_statements_preloaded},
      grant     => 'add pg_stat_statements to shared_preload_libraries (ALTER SYSTEM SET '
                   . 'shared_preload_libraries = ..., keeping the libraries it has) and restart '
                   . 'the server',
      gives     => 'the Top statements section: without it the view refuses to be read',
      note      => defined $f{pg_stat_statements_preloaded} ? undef
                   : 'the role may not read shared_preload_libraries',
    };
    my $fn = $row->{pg_stat_statements_reset_function} // '';
    $fn = 'pg_stat_statements_reset' if $fn eq '';
    push @items, {
      privilege => 'EXECUTE on pg_stat_statements_reset()',
      held      => $f{pg_stat_statements_reset},
      grant     => "GRANT EXECUTE ON FUNCTION $fn TO $q;",
      gives     => 'the view emptied at the measurement interval\'s start; without it the report '
                   . 'takes the difference of two readings, the same figures unless statements '
                   . 'were evicted in between (more than pg_stat_statements.max of them)',
    };
  }
  # No pg_checkpoint role (before 15): CHECKPOINT is a superuser's, and nothing grants it.
  my $no_role = !defined $f{pg_checkpoint} && defined $f{superuser} && !$f{superuser};
  push @items, {
    privilege => 'pg_checkpoint',
    held      => $f{superuser} ? 1 : $no_role ? 0 : $f{pg_checkpoint},
    grant     => $no_role ? 'nothing grants it before PostgreSQL 15, where only a superuser may '
                            . 'run CHECKPOINT'
                          : "GRANT pg_checkpoint TO $q;",
    gives     => 'CHECKPOINT, to start a run from a fresh checkpoint by hand; the kit issues '
                 . 'none and the report does not need it',
    optional  => 1,
  };
  $p->{items} = \@items;
  $p->{missing} = [map { $_->{privilege} }
                   grep { defined $_->{held} && !$_->{held} && !$_->{optional} } @items];
}

1;
