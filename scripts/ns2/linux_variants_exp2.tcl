# linux-variants, experiment 2 (Alrshah & Othman, Section 3.1, Table 2), as an
# ns-2.35 script with TCP-Linux (Agent/TCP/Linux running the Linux 2.6
# congestion modules that ship with ns-2.35), for scripts/ns2_crosscheck.py.
#
# Topology: N senders -(1 Gbit/s, 1 ms)- R1 -(1 Gbit/s, 100 ms)- R2 -(1 Gbit/s,
# 1 ms)- N receivers; DropTail, every queue limit BUFFER packets (as the
# study file sets them); 1000-byte segments; FTP from t = 0; receivers
# Agent/TCPSink/Sack1 (an ACK per packet). The advertised window is large
# enough never to limit (window_ 1 000 000 packets).
#
# Usage: ns linux_variants_exp2.tcl ALGORITHM N BUFFER DURATION_S [START_STEP_MS]
# Flow i starts at i * START_STEP_MS (default 0: all at t = 0, as the study;
# a nonzero step probes how much a cell hangs on the flows' synchronised start).
# Prints one line per flow and one "total" line of key=value pairs.
if {$argc != 4 && $argc != 5} {
  puts stderr "usage: ns linux_variants_exp2.tcl ALGORITHM N BUFFER DURATION_S \[START_STEP_MS\]"
  exit 2
}
set algo [lindex $argv 0]
set nflows [lindex $argv 1]
set buf [lindex $argv 2]
set dur [lindex $argv 3]
set step_ms [expr {$argc == 5 ? [lindex $argv 4] : 0}]

set ns [new Simulator]
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 1000000
Agent/TCP set timestamps_ true
Agent/TCPSink set ts_echo_rfc1323_ true

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1000Mb 100ms DropTail
$ns queue-limit $r1 $r2 $buf
$ns queue-limit $r2 $r1 $buf
set qmons [list [$ns monitor-queue $r1 $r2 [open /dev/null w] 1.0]]
for {set i 0} {$i < $nflows} {incr i} {
  set s($i) [$ns node]
  set d($i) [$ns node]
  $ns duplex-link $s($i) $r1 1000Mb 1ms DropTail
  $ns duplex-link $r2 $d($i) 1000Mb 1ms DropTail
  foreach {a b} [list $s($i) $r1 $r1 $s($i) $r2 $d($i) $d($i) $r2] {
    $ns queue-limit $a $b $buf
  }
  # Data can also be dropped on the sender's own link (its window leaves
  # the agent as one burst) and on the receiver's.
  lappend qmons [$ns monitor-queue $s($i) $r1 [open /dev/null w] 1.0]
  lappend qmons [$ns monitor-queue $r2 $d($i) [open /dev/null w] 1.0]
  set tcp($i) [new Agent/TCP/Linux]
  $ns attach-agent $s($i) $tcp($i)
  set sink($i) [new Agent/TCPSink/Sack1]
  $ns attach-agent $d($i) $sink($i)
  $ns connect $tcp($i) $sink($i)
  set ftp($i) [new Application/FTP]
  $ftp($i) attach-agent $tcp($i)
  set t0 [expr {$i * $step_ms / 1000.0}]
  $ns at $t0 "$tcp($i) select_ca $algo"
  $ns at $t0 "$ftp($i) start"
}

proc report {} {
  global nflows tcp qmons r1 r2
  set sent 0
  set acked 0
  for {set i 0} {$i < $nflows} {incr i} {
    set a [$tcp($i) set ack_]
    set n [$tcp($i) set ndatapack_]
    puts "flow=$i acked=$a sent=$n retransmitted=[$tcp($i) set nrexmitpack_] cwnd=[$tcp($i) set cwnd_]"
    incr sent $n
    incr acked $a
  }
  set drops 0
  foreach q $qmons { incr drops [$q set pdrops_] }
  set bottleneck [lindex $qmons 0]
  puts "total acked=$acked sent=$sent drops=$drops bottleneck_drops=[$bottleneck set pdrops_]"
  exit 0
}
$ns at $dur "report"
$ns run
