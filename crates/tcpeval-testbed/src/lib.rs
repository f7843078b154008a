//! The real-Linux testbed of tcpeval: the parts that must run per packet or
//! per probe period, in threads, not in Python.
//!
//! Python (`python/tcpeval/testbed/`) builds the network namespaces, veth
//! pairs and the bottleneck qdisc with iproute2; this crate then runs one
//! experiment in real time ([`run::start`]):
//!
//! - [`delay_line`]: an L2 "wire" between two interfaces of a namespace that
//!   moves each frame across after its flow's one-way delay (AF_PACKET
//!   sockets), with optional seeded random loss, and measures its own
//!   lateness ([`lateness`]);
//! - [`flows`]: bulk TCP senders and receivers on the host kernel's stack,
//!   with `TCP_CONGESTION` set per flow;
//! - [`sampler`]: `TCP_INFO` ([`tcp_info`]) and qdisc statistics
//!   ([`qdisc_stats`], rtnetlink) at the scenario's probe periods, into the
//!   same series columns as the simulator.
//!
//! Threads enter a namespace with `setns(2)` on `/run/netns/NAME`
//! ([`netns`]), which moves only the calling thread; a socket stays in the
//! namespace it was created in.
#![cfg(target_os = "linux")]

pub mod clock;
pub mod config;
pub mod delay_line;
pub mod error;
pub mod flows;
pub mod lateness;
pub mod netns;
pub mod offload;
pub mod qdisc_stats;
pub mod run;
pub mod sampler;
pub mod sched;
pub mod sys;
pub mod tcp_info;

pub use error::Error;
