//! The network: links with their queues (DropTail, or an active
//! discipline in front of it), and the topology builders that turn a
//! scenario's topology into links and per-flow routes.

pub mod link;
pub mod queue;
pub mod schedule;
pub mod topology;

pub use link::{BufferLimit, Link, LinkCounters, Offer};
pub use topology::{build_network, FlowRoute, LinkSpec, Network};
