#!/usr/bin/perl
# ignore_fuzz.pl SEED COMMITS: print a git fast-import stream of one file,
# f.c, edited the way reformatting commits edit code (renamed identifiers,
# reindented blocks, changed case, split and joined lines, lines added,
# dropped, duplicated and moved), on two branches that merge now and then
# (merges keep one side, mix both, or edit on top). The tip is refs/heads/main.
# On stderr: the marks of the commits to ignore, one per line (about a
# third, so back-to-back ignored commits and ignored merges occur).
use strict;
use warnings;

my ($seed, $ncommits) = @ARGV;
srand($seed);
$ncommits //= 12;

my @ids = qw(count total index len buf ptr node next prev size value key
	     data item result status flags offset limit name path entry);
my @tpl = (
	'int %s = %s;', 'if (%s < %s)', 'return %s;', '%s = %s + 1;',
	'for (%s = 0; %s < %s; %s++)', 'while (%s != NULL) {', '}', '{',
	'%s->%s = %s;', 'static int %s(const char *%s, size_t %s)',
	'/* %s the %s before %s */', 'free(%s);', '%s = malloc(%s);',
	'if (!%s) return -1;', 'else', '%s(%s, %s);', '',
	'#define %s %s', 'struct %s *%s;', 'break;',
);

sub rid { $ids[int rand @ids] }
sub rline {
	my $t = $tpl[int rand @tpl];
	my $n = () = $t =~ /%s/g;
	my $ind = ("\t" x int(rand 3)) . (rand() < 0.1 ? '    ' : '');
	return $ind . sprintf($t, map { rid() } 1 .. $n);
}

sub mutate {
	my ($l) = @_;
	my @l = @$l;
	my $ops = 1 + int rand 4;
	for (1 .. $ops) {
		my $op = int rand 13;
		my $n = @l;
		my $i = int rand($n + 1);
		if ($op == 0 && $n) {          # rename an identifier everywhere
			my $from = rid();
			my $to = rid() . (rand() < 0.5 ? '_' . rid() : '');
			s/\b$from\b/$to/g for @l;
		} elsif ($op == 1 && $n) {     # reindent a block
			my $j = $i + int rand 8;
			$j = $n - 1 if $j >= $n;
			for my $k ($i .. $j) {
				next if $k >= $n;
				if (rand() < 0.5) {
					$l[$k] =~ s/^\t/    /;
				} else {
					$l[$k] = "\t$l[$k]";
				}
			}
		} elsif ($op == 2 && $n) {     # edit one token
			$i = $n - 1 if $i >= $n;
			my $r = rid();
			$l[$i] =~ s/\b[a-z_]+\b/$r/ or $l[$i] .= " $r";
		} elsif ($op == 3) {           # new lines
			splice @l, $i, 0, map { rline() } 1 .. 1 + int rand 5;
		} elsif ($op == 4 && $n) {     # drop lines
			splice @l, $i, 1 + int rand 4;
		} elsif ($op == 5 && $n) {     # duplicate lines
			my $s = int rand $n;
			my $e = $s + int rand 3;
			$e = $n - 1 if $e >= $n;
			my @c = @l[$s .. $e];
			splice @l, $i, 0, @c;
		} elsif ($op == 6 && $n) {     # change case
			$i = $n - 1 if $i >= $n;
			$l[$i] = rand() < 0.5 ? uc $l[$i] : ucfirst $l[$i];
		} elsif ($op == 7 && $n > 1) { # join two lines
			$i = $n - 2 if $i >= $n - 1;
			splice @l, $i, 2, "$l[$i] $l[$i + 1]";
		} elsif ($op == 8 && $n) {     # split a line at a blank
			$i = $n - 1 if $i >= $n;
			my @w = split / /, $l[$i];
			if (@w > 2) {
				my $c = 1 + int rand(@w - 1);
				splice @l, $i, 1, join(' ', @w[0 .. $c - 1]),
				    "\t" . join(' ', @w[$c .. $#w]);
			}
		} elsif ($op == 9 && $n > 3) { # move a block
			my $s = int rand($n - 2);
			my @b = splice @l, $s, 1 + int rand 3;
			my $at = int rand(@l + 1);
			splice @l, $at, 0, @b;
		} elsif ($op == 10 && $n) {    # reformat a line's spacing
			$i = $n - 1 if $i >= $n;
			$l[$i] =~ s/ = /=/g or $l[$i] =~ s/, /,/g or
			    $l[$i] =~ s/\(/ ( /;
		} elsif ($op == 11) {          # blank lines
			splice @l, $i, 0, ('') x (1 + int rand 2);
		} elsif ($op == 12 && $n) {    # rework a long block
			my $j = $i + 10 + int rand 40;
			$j = $n if $j > $n;
			my @b;
			for my $x (@l[$i .. $j - 1]) {
				my $r = rand;
				if ($r < 0.1) {
					next;
				} elsif ($r < 0.2) {
					push @b, $x, rline();
				} elsif ($r < 0.3) {
					push @b, uc $x;
				} else {
					(my $y = $x) =~ s/ = |, |\(|\t/ /g;
					$y =~ s/\b(\w)(\w*)\b/$1\U$2/
					    if rand() < 0.3;
					push @b, $y;
				}
			}
			splice @l, $i, $j - $i, @b;
		}
	}
	return \@l;
}

my $time = 1600000000;
my $mark = 0;
my (%content, %eol);
my @ignore;
my %head = (main => undef, side => undef);

sub emit {
	my ($ref, $parents, $lines, $noeol) = @_;
	$mark++;
	$time += 60;
	my $body = join("\n", @$lines);
	$body .= "\n" if @$lines && !$noeol;
	my $msg = "c$mark";
	print "commit refs/heads/$ref\nmark :$mark\n";
	print "committer T <t\@e> $time +0000\n";
	print "data ", length($msg), "\n$msg\n";
	if (@$parents) {
		print "from :$parents->[0]\n";
		print "merge :$_\n" for @$parents[1 .. $#$parents];
	}
	print "M 100644 inline f.c\ndata ", length($body), "\n$body\n";
	$content{$mark} = $lines;
	$eol{$mark} = $noeol;
	push @ignore, $mark if $mark > 1 && rand() < 0.35;
	$head{$ref} = $mark;
	return $mark;
}

my @start = map { rline() } 1 .. 10 + int rand(rand() < 0.3 ? 150 : 30);
emit('main', [], \@start, 0);
$head{side} = $head{main};
for (2 .. $ncommits) {
	my $r = rand();
	if ($r < 0.15 && $head{side} != $head{main}) {
		# a merge of side into main
		my ($a, $b) = ($content{$head{main}}, $content{$head{side}});
		my $how = int rand 4;
		my $lines;
		if ($how == 0) {
			$lines = $a;
		} elsif ($how == 1) {
			$lines = $b;
		} elsif ($how == 2) {
			my @m = (@$a[0 .. int(@$a / 2) - 1],
				 @$b[int(@$b / 2) .. $#$b]);
			$lines = \@m;
		} else {
			$lines = mutate($a);
		}
		emit('main', [$head{main}, $head{side}], $lines, 0);
	} else {
		my $ref = rand() < 0.65 ? 'main' : 'side';
		my $lines = mutate($content{$head{$ref}});
		emit($ref, [$head{$ref}], $lines, rand() < 0.05);
	}
}
print STDERR ":$_\n" for @ignore;
