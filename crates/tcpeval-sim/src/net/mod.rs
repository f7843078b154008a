//! The network: links with DropTail queues, and the topology builders that
//! turn a scenario's topology into links and per-flow routes.

pub mod link;
pub mod schedule;
pub mod topology;

pub use link::{BufferLimit, Link, LinkCounters, Offer};
pub use topology::{build_network, FlowRoute, LinkSpec, Network};
