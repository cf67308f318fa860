#!/usr/bin/perl
# A Vega core's broker socket, as the tests play it: a nanomsg PAIR v0 socket (NanoMsg::Raw, the
# C library libnanomsg; an implementation independent of epochview's) that dials epochview and
# sends what it is told on stdin, one command a line:
#   send FILE   every record of the event file FILE ([uint32 size][uint64 seq][BusEvent]) as one
#               message each, in order; answers "sent N" once nanomsg took them all
#   close       closes the socket and exits (so does the end of stdin)
use strict;
use warnings;
use NanoMsg::Raw;

my ($address) = @ARGV;
die "usage: nanomsg-peer.pl tcp://HOST:PORT\n" unless defined $address;
$| = 1;
my $socket = nn_socket(AF_SP, NN_PAIR);
die 'nn_socket: ' . nn_strerror(nn_errno()) . "\n" unless defined $socket;
defined nn_connect($socket, $address) or die 'nn_connect: ' . nn_strerror(nn_errno()) . "\n";

while (my $line = <STDIN>) {
  chomp $line;
  if ($line =~ /^send (.+)$/) {
    open(my $in, '<:raw', $1) or die "$1: $!\n";
    local $/;
    my $bytes = <$in>;
    close $in;
    my ($at, $count) = (0, 0);
    while ($at < length $bytes) {
      my $size = unpack('N', substr($bytes, $at, 4));
      my $event = substr($bytes, $at + 12, $size - 8);
      defined nn_send($socket, $event, 0) or die 'nn_send: ' . nn_strerror(nn_errno()) . "\n";
      $at += 4 + $size;
      $count++;
    }
    print "sent $count\n";
  } elsif ($line eq 'close') {
    last;
  } else {
    die "unknown command: $line\n";
  }
}
nn_close($socket);
