# reverse, scenario A (Mascolo & Vacirca, Sec. III-A) as an ns-2.35 script,
# for scripts/ns2_crosscheck.py: forward flows A and B (left to right, start
# at random in [0, 10) s), reverse flows C and D (right to left) during
# [333, 666) s, all of one stack.
#
# Topology (Fig. 1): bottleneck R1-R2 of 250 Mbit/s each way with one-way
# delay D ms, DropTail buffer = BDP (833 packets at 40 ms RTT, 3333 at
# 160 ms); access links 2.5 Gbit/s, 2.5 ms. Packet size 1500 bytes
# (packetSize_; ns-2 puts 40 header bytes on top when useHeaders_ is true, its
# default). Receivers TCPSink/Sack1 (an ACK per packet). Limited Slow-Start
# with max_ssthresh 100 (Sec. III).
#
# STACK: sack (Agent/TCP/Sack1), highspeed (Sack1 with ns-2's built-in
# HighSpeed TCP, windowOption_ 8), or a TCP-Linux module name (htcp,
# scalable, bic, cubic, westwood...) run by Agent/TCP/Linux.
#
# Usage: ns reverse_scenario_a.tcl STACK DELAY_MS BUFFER DURATION_S SEED
#          [POLL_FROM_S POLL_TO_S POLL_STEP_S]
# Prints one line per flow (timeouts = nrexmit_, ns-2's count of
# retransmission timeouts with data outstanding) and per bottleneck direction.
# With the three optional arguments it also prints A's and B's sender state
# every POLL_STEP_S seconds in [POLL_FROM_S, POLL_TO_S] (lines starting "p"):
# cwnd_, ssthresh_, timeouts, retransmitted packets, ack_, t_seqno_, srtt_
# (ticks x 8), rttvar_ (ticks x 4), backoff_, dupacks_ and both bottleneck
# queues in packets; the RTO is (srtt_ + 8 rttvar_) / 8 ticks of tcpTick_.
if {$argc != 5 && $argc != 8} {
  puts stderr "usage: ns reverse_scenario_a.tcl STACK DELAY_MS BUFFER DURATION_S SEED \[POLL_FROM_S POLL_TO_S POLL_STEP_S\]"
  exit 2
}
set stack [lindex $argv 0]
set delay [lindex $argv 1]
set buf [lindex $argv 2]
set dur [lindex $argv 3]
set seed [lindex $argv 4]

set ns [new Simulator]
ns-random $seed
set rng [new RNG]
$rng seed $seed
Agent/TCP set packetSize_ 1500
Agent/TCP set window_ 1000000
Agent/TCP set max_ssthresh_ 100

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 250Mb ${delay}ms DropTail
$ns queue-limit $r1 $r2 $buf
$ns queue-limit $r2 $r1 $buf
set fwd [$ns monitor-queue $r1 $r2 [open /dev/null w] 1.0]
set rev [$ns monitor-queue $r2 $r1 [open /dev/null w] 1.0]

proc agent {} {
  global stack
  if {$stack == "sack"} {
    return [new Agent/TCP/Sack1]
  } elseif {$stack == "highspeed"} {
    set a [new Agent/TCP/Sack1]
    $a set windowOption_ 8
    return $a
  }
  return [new Agent/TCP/Linux]
}

# name -> {left node side: 1 = data goes left to right} start stop
set flows {A 1 jitter 0  B 1 jitter 0  C 0 333 666  D 0 333 666}
foreach {name fwdir start stop} $flows {
  set l [$ns node]
  set r [$ns node]
  $ns duplex-link $l $r1 2500Mb 2.5ms DropTail
  $ns duplex-link $r2 $r 2500Mb 2.5ms DropTail
  foreach {a b} [list $l $r1 $r1 $l $r2 $r $r $r2] { $ns queue-limit $a $b 100000 }
  set tcp($name) [agent]
  set sink($name) [new Agent/TCPSink/Sack1]
  if {$fwdir} {
    $ns attach-agent $l $tcp($name)
    $ns attach-agent $r $sink($name)
  } else {
    $ns attach-agent $r $tcp($name)
    $ns attach-agent $l $sink($name)
  }
  $ns connect $tcp($name) $sink($name)
  set ftp($name) [new Application/FTP]
  $ftp($name) attach-agent $tcp($name)
  if {$stack != "sack" && $stack != "highspeed"} {
    $ns at 0.0 "$tcp($name) select_ca $stack"
  }
  if {$start == "jitter"} { set start [$rng uniform 0 10] }
  $ns at $start "$ftp($name) start"
  if {$stop > 0} { $ns at $stop "$ftp($name) stop" }
}

# Counters at the phase boundaries, so each phase's timeouts and goodput can
# be read as differences.
proc snapshot {label} {
  global tcp fwd rev ns
  foreach name {A B C D} {
    puts "t=$label flow=$name acked=[$tcp($name) set ack_] sent=[$tcp($name) set ndatapack_] retransmitted=[$tcp($name) set nrexmitpack_] timeouts=[$tcp($name) set nrexmit_]"
  }
  puts "t=$label link=fwd drops=[$fwd set pdrops_] departures=[$fwd set pdepartures_]"
  puts "t=$label link=rev drops=[$rev set pdrops_] departures=[$rev set pdepartures_]"
}
set third [expr $dur / 3.0]
$ns at [expr $third - 0.001] "snapshot 1"
$ns at [expr 2 * $third - 0.001] "snapshot 2"
if {$argc == 8} {
  set poll_to [lindex $argv 6]
  set poll_step [lindex $argv 7]
  proc poll {} {
    global tcp ns fwd rev poll_to poll_step
    set now [$ns now]
    foreach name {A B} {
      puts "p t=$now flow=$name cwnd=[$tcp($name) set cwnd_] ssthresh=[$tcp($name) set ssthresh_] timeouts=[$tcp($name) set nrexmit_] rexmit=[$tcp($name) set nrexmitpack_] ack=[$tcp($name) set ack_] seq=[$tcp($name) set t_seqno_] srtt8=[$tcp($name) set srtt_] rttvar4=[$tcp($name) set rttvar_] backoff=[$tcp($name) set backoff_] dup=[$tcp($name) set dupacks_] fwdq=[$fwd set pkts_] revq=[$rev set pkts_]"
    }
    if {$now + $poll_step <= $poll_to} { $ns at [expr $now + $poll_step] "poll" }
  }
  $ns at [lindex $argv 5] "poll"
}
$ns at $dur "snapshot 3; exit 0"
$ns run
