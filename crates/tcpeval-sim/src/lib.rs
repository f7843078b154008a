//! The tcpeval simulation engine: a deterministic packet-level
//! discrete-event simulator of TCP flows over DropTail networks.
//!
//! Data flow: a [`scenario::Scenario`] (serde) is validated and resolved
//! into a [`resolve::Resolved`] plan, from which a [`world::World`] (links,
//! flows, events) is built; [`world::World::run`] (or
//! repeated [`world::World::advance`] calls, for progress reporting) returns
//! [`results::Results`]: probe columns and per-flow / per-link totals.

pub mod columns;
pub mod event;
mod fifo;
mod flow;
pub mod net;
pub mod packet;
pub mod platform;
mod prefetch;
pub mod probe;
pub mod resolve;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod tcp;
pub mod time;
pub mod time_scale;
pub mod toml_position;
pub mod traffic;
pub mod world;

pub use results::Results;
pub use scenario::{from_deserializer, from_json, Scenario, ScenarioError};
pub use time::Time;
pub use world::World;

/// Parses, validates and runs a scenario given as JSON.
pub fn run_json(text: &str) -> Result<Results, ScenarioError> {
    let sc = from_json(text)?;
    Ok(World::new(&sc)?.run())
}
