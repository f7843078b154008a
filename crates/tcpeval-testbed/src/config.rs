//! What one testbed run does, as the Python side hands it over (JSON).
//! Python builds the namespaces and decides every value; this crate checks
//! only what would make a thread misbehave (negative times, loss outside
//! 0..=1), naming the field.

use std::net::Ipv4Addr;

use serde::Deserialize;

use crate::error::{Error, Result};

/// One run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Length of the run from its time zero, s.
    pub duration_s: f64,
    /// Period of the flow series (`TCP_INFO`), s; 0 records none.
    pub flow_period_s: f64,
    /// Period of the queue series (qdisc counters), s; 0 records none.
    pub queue_period_s: f64,
    /// The delay line, if the run has one.
    pub wire: Option<WireConfig>,
    /// Bulk TCP flows.
    pub flows: Vec<FlowConfig>,
    /// Qdiscs to sample into the queue series.
    pub queues: Vec<QueueConfig>,
    /// Run every thread (delay line, sampler, senders, receivers) with
    /// real-time priority (see [`crate::sched`]).
    pub realtime: bool,
}

/// The delay line: a namespace with two interfaces that it bridges.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireConfig {
    /// Namespace holding both interfaces.
    pub netns: String,
    /// Interface toward the router.
    pub router_side: String,
    /// Interface toward the hosts whose addresses the classes name.
    pub host_side: String,
    /// Seed of the random-loss generators.
    pub seed: u64,
    /// Per-address delay and loss; frames of other addresses (ARP) cross
    /// without delay.
    pub classes: Vec<WireClass>,
}

/// Delay and loss of the frames to and from one host-side IPv4 address.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireClass {
    /// The host-side address (destination toward the hosts, source toward the router).
    pub addr: Ipv4Addr,
    /// One-way delay in each direction, s.
    pub delay_s: f64,
    /// Probability of dropping a frame going toward the hosts.
    pub loss_to_hosts: f64,
    /// Probability of dropping a frame going toward the router.
    pub loss_to_router: f64,
}

/// One bulk TCP flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Namespace of the sender.
    pub sender_netns: String,
    /// Namespace of the receiver.
    pub receiver_netns: String,
    /// Source address to bind, if any.
    pub sender_addr: Option<Ipv4Addr>,
    /// Address the receiver listens on.
    pub receiver_addr: Ipv4Addr,
    /// Port the receiver listens on.
    pub port: u16,
    /// `TCP_CONGESTION` name.
    pub algorithm: String,
    /// Start, s after time zero.
    pub start_s: f64,
    /// Stop, s after time zero (`None`: the end of the run).
    pub stop_s: Option<f64>,
}

/// One qdisc sampled into the queue series.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    /// Namespace of the interface.
    pub netns: String,
    /// Interface.
    pub ifname: String,
    /// Qdisc handle (major << 16).
    pub handle: u32,
    /// Link index the series rows carry.
    pub link: u32,
}

fn check_time(field: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(Error(format!("{field}: {v} is not a time in s >= 0")));
    }
    Ok(())
}

fn check_prob(field: &str, v: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&v) {
        return Err(Error(format!(
            "{field}: {v} is not a probability in 0 ..= 1"
        )));
    }
    Ok(())
}

impl RunConfig {
    /// Parses and checks a run's JSON text.
    pub fn from_json(text: &str) -> Result<Self> {
        let c: RunConfig =
            serde_json::from_str(text).map_err(|e| Error(format!("testbed run config: {e}")))?;
        c.check()?;
        Ok(c)
    }

    /// Checks times, periods and probabilities, naming the field.
    pub fn check(&self) -> Result<()> {
        check_time("duration_s", self.duration_s)?;
        check_time("flow_period_s", self.flow_period_s)?;
        check_time("queue_period_s", self.queue_period_s)?;
        for (name, p) in [
            ("flow_period_s", self.flow_period_s),
            ("queue_period_s", self.queue_period_s),
        ] {
            if p > 0.0 && p < 1e-4 {
                return Err(Error(format!(
                    "{name}: {p} s is below the smallest period, 0.1 ms"
                )));
            }
        }
        if let Some(w) = &self.wire {
            for (i, c) in w.classes.iter().enumerate() {
                check_time(&format!("wire.classes[{i}].delay_s"), c.delay_s)?;
                check_prob(&format!("wire.classes[{i}].loss_to_hosts"), c.loss_to_hosts)?;
                check_prob(
                    &format!("wire.classes[{i}].loss_to_router"),
                    c.loss_to_router,
                )?;
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            check_time(&format!("flows[{i}].start_s"), f.start_s)?;
            if let Some(s) = f.stop_s {
                check_time(&format!("flows[{i}].stop_s"), s)?;
            }
            if f.algorithm.is_empty() || f.algorithm.len() >= 16 {
                return Err(Error(format!(
                    "flows[{i}].algorithm: {:?} is not a congestion-control name",
                    f.algorithm
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field() {
        let base = r#"{"duration_s": 1, "flow_period_s": 0.01, "queue_period_s": 0.01, "queues": [], "realtime": false,
            "wire": {"netns": "w", "router_side": "a", "host_side": "b", "seed": 1,
                     "classes": [{"addr": "10.0.2.10", "delay_s": 0.05, "loss_to_hosts": LOSS, "loss_to_router": 0}]},
            "flows": []}"#;
        assert!(RunConfig::from_json(&base.replace("LOSS", "0.01")).is_ok());
        let e = RunConfig::from_json(&base.replace("LOSS", "1.5")).unwrap_err();
        assert_eq!(
            e.0,
            "wire.classes[0].loss_to_hosts: 1.5 is not a probability in 0 ..= 1"
        );
        let e = RunConfig::from_json(
            &base
                .replace("LOSS", "0")
                .replace("\"duration_s\": 1", "\"duration_s\": -1"),
        )
        .unwrap_err();
        assert_eq!(e.0, "duration_s: -1 is not a time in s >= 0");
    }
}
