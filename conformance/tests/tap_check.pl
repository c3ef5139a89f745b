#!/usr/bin/env perl
# Parses a devspec TAP stream with TAP::Parser (the parser behind prove): the stream itself
# and the body of every subtest, each as a stream of its own. Exits non-zero and says why
# on any parse error or plan mismatch.
#
# The runner writes "TAP version 13" by default (TAP::Harness before 3.48 refuses 14) and
# "TAP version 14" with --tap-version 14; the streams differ only in that line. Version 14
# only adds the indented subtests, which a version 13 parser ignores by design, so the
# version line is read as 13 here and the subtests are checked separately.
use strict;
use warnings;
use TAP::Parser;

my $file = shift or die "usage: tap_check.pl FILE\n";
open my $fh, '<', $file or die "$file: $!\n";
my @lines = <$fh>;
close $fh;
my $problems = 0;

sub parse_stream {
    my ($what, $text) = @_;
    my $p = TAP::Parser->new({ tap => $text });
    my ($tests, $yaml) = (0, 0);
    while (my $r = $p->next) {
        $tests++ if $r->is_test;
        $yaml++ if $r->is_yaml;
    }
    for my $e ($p->parse_errors) {
        print "$what: parse error: $e\n";
        $problems++;
    }
    if (!$p->plan) {
        print "$what: no plan\n";
        $problems++;
    }
    return $tests;
}

die "$file: the first line is not 'TAP version 13' or 14\n"
    unless $lines[0] =~ /^TAP version 1[34]\n\z/;
my @top = @lines;
$top[0] = "TAP version 13\n";
my $bailed = grep { /^Bail out!/ } @lines;
parse_stream('top level', join('', @top)) unless $bailed;

# Subtests: "# Subtest: NAME", then lines indented four spaces, then the parent test point.
my ($name, @body, $count);
for my $line (@lines) {
    if ($line =~ /^# Subtest: (.*)$/) {
        ($name, @body) = ($1);
        next;
    }
    if (defined $name && $line =~ /^    (.*\n)$/) {
        push @body, $1;
        next;
    }
    if (defined $name) {
        if ($line !~ /^(not )?ok \d+ - \Q$name\E$/) {
            print "subtest $name: not closed by its test point: $line";
            $problems++;
        }
        my $tests = parse_stream("subtest $name", "TAP version 13\n" . join('', @body));
        $count++;
        undef $name;
    }
}
print "checked the stream and $count subtest(s)\n";
exit($problems ? 1 : 0);
