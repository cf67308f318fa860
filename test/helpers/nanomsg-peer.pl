#!/usr/bin/perl
# A Vega core's broker socket, as the tests and bench/broker.ts play it: a nanomsg PAIR v0 socket
# (NanoMsg::Raw, the C library libnanomsg; an implementation independent of epochview's) that
# dials epochview and sends what it is told on stdin, one command a line:
#   send FILE [FROM LENGTH]
#               every record of the event file FILE ([uint32 size][uint64 seq][BusEvent]), or of
#               its LENGTH bytes from byte FROM, as one message each, in order, read as they are
#               sent; answers "sent N FIRST LAST" once nanomsg took them all, FIRST and LAST the
#               CLOCK_MONOTONIC seconds just before the first and the last message was handed over
#               (Node's process.hrtime reads the same clock)
#   close       closes the socket and exits (so does the end of stdin)
use strict;
use warnings;
use NanoMsg::Raw;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my ($address) = @ARGV;
die "usage: nanomsg-peer.pl tcp://HOST:PORT\n" unless defined $address;
$| = 1;
my $socket = nn_socket(AF_SP, NN_PAIR);
die 'nn_socket: ' . nn_strerror(nn_errno()) . "\n" unless defined $socket;
defined nn_connect($socket, $address) or die 'nn_connect: ' . nn_strerror(nn_errno()) . "\n";

while (my $line = <STDIN>) {
  chomp $line;
  if ($line =~ /^send (.+?)(?: (\d+) (\d+))?$/) {
    my ($file, $from) = ($1, $2 // 0);
    open(my $in, '<:raw', $file) or die "$file: $!\n";
    seek($in, $from, 0) or die "$file: $!\n";
    my $left = $3 // (-s $in) - $from;
    my ($count, $first, $last) = (0, 0, 0);
    while ($left > 0) {
      read($in, my $head, 12) == 12 or die "$file: a record cut short\n";
      my $size = unpack('N', $head);
      read($in, my $event, $size - 8) == $size - 8 or die "$file: a record cut short\n";
      $last = clock_gettime(CLOCK_MONOTONIC);
      $first = $last if $count == 0;
      defined nn_send($socket, $event, 0) or die 'nn_send: ' . nn_strerror(nn_errno()) . "\n";
      $left -= 4 + $size;
      $count++;
    }
    close $in;
    printf "sent %d %.6f %.6f\n", $count, $first, $last;
  } elsif ($line eq 'close') {
    last;
  } else {
    die "unknown command: $line\n";
  }
}
nn_close($socket);
