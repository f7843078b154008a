//! Shrinking a scenario's time axis (a study's quick mode): the duration,
//! the start and stop times of flows and traffic generators, and link rate
//! and delay schedules scale by one factor. Durations inside traffic models
//! (think times, on/off periods) and every rate, delay and size keep their
//! values: they shape the traffic, not the run. Each part of a scenario says
//! which of its fields are times on the run's axis by implementing
//! [`ScaleTime`].

use crate::scenario::{FlowSpec, GraphLink, LinkOpts, Scenario, ScenarioError, Topology};

/// A part of a scenario whose points and spans on the run's time axis
/// scale with the run.
pub trait ScaleTime {
    /// Multiplies every time of the run's axis by `factor` (> 0).
    fn scale_time(&mut self, factor: f64);
}

/// Scales the times (first elements) of a `[[time_s, value], ...]` schedule.
pub(crate) fn scale_schedule(schedule: &mut [(f64, f64)], factor: f64) {
    for (t, _) in schedule.iter_mut() {
        *t *= factor;
    }
}

/// Scales an optional time.
pub(crate) fn scale_opt(t: &mut Option<f64>, factor: f64) {
    if let Some(t) = t {
        *t *= factor;
    }
}

/// `scenario` with its time axis scaled by `factor` (`0 < factor <= 1`:
/// quick mode only shrinks).
pub fn time_scaled(mut scenario: Scenario, factor: f64) -> Result<Scenario, ScenarioError> {
    crate::scenario::check_pos("duration_scale", factor, 1.0)?;
    scenario.scale_time(factor);
    Ok(scenario)
}

impl ScaleTime for Scenario {
    fn scale_time(&mut self, factor: f64) {
        self.duration_s *= factor;
        for flow in &mut self.flows {
            flow.scale_time(factor);
        }
        self.traffic.scale_time(factor);
        self.topology.scale_time(factor);
    }
}

impl ScaleTime for FlowSpec {
    fn scale_time(&mut self, factor: f64) {
        self.start_s *= factor;
        scale_opt(&mut self.start_jitter_s, factor);
        scale_opt(&mut self.stop_s, factor);
    }
}

impl ScaleTime for Topology {
    fn scale_time(&mut self, factor: f64) {
        match self {
            Topology::Dumbbell(d) => d.bottleneck.scale_time(factor),
            Topology::ParkingLot(p) => p.links.iter_mut().for_each(|l| l.scale_time(factor)),
            Topology::Graph(g) => g.links.iter_mut().for_each(|l| l.scale_time(factor)),
        }
    }
}

impl ScaleTime for LinkOpts {
    fn scale_time(&mut self, factor: f64) {
        scale_schedule(&mut self.rate_schedule, factor);
        scale_schedule(&mut self.delay_schedule, factor);
    }
}

impl ScaleTime for GraphLink {
    fn scale_time(&mut self, factor: f64) {
        scale_schedule(&mut self.rate_schedule, factor);
        scale_schedule(&mut self.delay_schedule, factor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::from_json;

    #[test]
    fn the_run_axis_scales_and_traffic_shapes_do_not() {
        let sc = from_json(
            r#"{
            "duration_s": 100,
            "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 100, "delay_ms": 10,
                "rate_schedule": [[40, 50]], "delay_schedule": [[60, 20]]}},
            "flows": [{"algorithm": "reno", "rtt_ms": 100, "start_s": 10, "start_jitter_s": 2, "stop_s": 80}],
            "traffic": {
                "web": [{"load_mbps": 4, "start_s": 20, "stop_s": 90}],
                "bulk": [{"count": 2, "start_s": 30, "start_window_s": 4, "stop_s": 70}],
                "udp": [{"rate_mbps": 5, "start_s": 50, "on": {"kind": "fixed", "s": 1}, "off": {"kind": "fixed", "s": 3}}]
            }
        }"#,
        )
        .unwrap();
        let s = time_scaled(sc.clone(), 0.25).unwrap();
        assert_eq!(s.duration_s, 25.0);
        let f = &s.flows[0];
        assert_eq!(
            (f.start_s, f.start_jitter_s, f.stop_s),
            (2.5, Some(0.5), Some(20.0))
        );
        let Topology::Dumbbell(d) = &s.topology else {
            panic!()
        };
        assert_eq!(d.bottleneck.rate_schedule, vec![(10.0, 50.0)]);
        assert_eq!(d.bottleneck.delay_schedule, vec![(15.0, 20.0)]);
        let w = &s.traffic.web[0];
        assert_eq!(
            (w.start_s, w.stop_s, w.load_mbps),
            (5.0, Some(22.5), Some(4.0))
        );
        let b = &s.traffic.bulk[0];
        assert_eq!(
            (b.start_s, b.start_window_s, b.stop_s),
            (7.5, Some(1.0), Some(17.5))
        );
        let u = &s.traffic.udp[0];
        assert_eq!((u.start_s, u.stop_s), (12.5, None));
        assert_eq!(
            u.off, sc.traffic.udp[0].off,
            "on/off periods shape the traffic and keep their values"
        );
    }

    #[test]
    fn a_factor_outside_0_to_1_is_refused_by_name() {
        let sc = from_json(
            r#"{"duration_s": 10, "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 1, "delay_ms": 1}}, "flows": []}"#,
        )
        .unwrap();
        for bad in [0.0, -1.0, 1.5, f64::NAN] {
            let e = time_scaled(sc.clone(), bad).unwrap_err();
            assert_eq!(e.field, "duration_scale");
        }
    }
}
