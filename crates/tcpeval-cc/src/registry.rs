//! The list of algorithms: one line per algorithm in [`algorithms!`] gives the
//! [`Algorithm`] enum (static dispatch in the simulator's hot path), building
//! by name with parameter overrides, and the catalog for `tcpeval algorithms`.

use crate::params::{parse_overrides, ParamDoc, ParamError, ParamSet};
use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};

/// One algorithm's entry in the catalog.
#[derive(Clone, Debug)]
pub struct AlgorithmInfo {
    /// Registry name.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Default parameter values, as a JSON object.
    pub defaults: serde_json::Value,
    /// Meaning and unit of each parameter.
    pub docs: &'static [ParamDoc],
}

fn info<A: NamedAlgorithm>() -> AlgorithmInfo {
    AlgorithmInfo {
        name: A::NAME,
        summary: A::SUMMARY,
        defaults: serde_json::to_value(A::Params::default()).expect("parameters serialize"),
        docs: <A::Params as ParamSet>::DOCS,
    }
}

fn make<A: NamedAlgorithm>(overrides: &serde_json::Value) -> Result<A, ParamError> {
    Ok(A::new(parse_overrides::<A::Params>(overrides)?))
}

macro_rules! algorithms {
    ($($variant:ident => $ty:path),* $(,)?) => {
        /// Any registered algorithm; dispatches every hook with a `match`.
        #[derive(Clone, Debug)]
        pub enum Algorithm {
            $(#[allow(missing_docs)] $variant($ty)),*
        }

        impl Algorithm {
            /// Registry name of this algorithm.
            pub fn name(&self) -> &'static str {
                match self { $(Algorithm::$variant(_) => <$ty as NamedAlgorithm>::NAME),* }
            }
        }

        /// Builds the algorithm called `name` with the given parameter
        /// overrides (a JSON object, or `null` for the defaults).
        pub fn build(name: &str, overrides: &serde_json::Value) -> Result<Algorithm, ParamError> {
            $(if name == <$ty as NamedAlgorithm>::NAME {
                return Ok(Algorithm::$variant(make::<$ty>(overrides)?));
            })*
            Err(ParamError::new(
                "algorithm",
                format!("unknown algorithm '{name}'; known: {}", names().join(", ")),
            ))
        }

        /// Every registered algorithm with its parameters and defaults.
        pub fn catalog() -> Vec<AlgorithmInfo> {
            vec![$(info::<$ty>()),*]
        }

        /// The registered names, in catalog order.
        pub fn names() -> Vec<&'static str> {
            vec![$(<$ty as NamedAlgorithm>::NAME),*]
        }

        impl CongestionControl for Algorithm {
            fn init(&mut self, tcb: &mut Tcb) {
                match self { $(Algorithm::$variant(a) => a.init(tcb)),* }
            }
            fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
                match self { $(Algorithm::$variant(a) => a.ssthresh(tcb)),* }
            }
            #[inline]
            fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
                match self { $(Algorithm::$variant(a) => a.cong_avoid(tcb, ack)),* }
            }
            #[inline]
            fn in_ack_event(&mut self, tcb: &Tcb) {
                match self { $(Algorithm::$variant(a) => a.in_ack_event(tcb)),* }
            }
            #[inline]
            fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
                match self { $(Algorithm::$variant(a) => a.pkts_acked(tcb, sample)),* }
            }
            fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
                match self { $(Algorithm::$variant(a) => a.set_state(tcb, new_state)),* }
            }
            fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
                match self { $(Algorithm::$variant(a) => a.cwnd_event(tcb, event)),* }
            }
            fn min_cwnd(&self, tcb: &Tcb) -> f64 {
                match self { $(Algorithm::$variant(a) => a.min_cwnd(tcb)),* }
            }
            fn undo_cwnd(&mut self, tcb: &Tcb, prior_cwnd: f64) -> f64 {
                match self { $(Algorithm::$variant(a) => a.undo_cwnd(tcb, prior_cwnd)),* }
            }
            fn timer_period(&self) -> Option<Time> {
                match self { $(Algorithm::$variant(a) => a.timer_period()),* }
            }
            fn on_timer(&mut self, tcb: &mut Tcb) {
                match self { $(Algorithm::$variant(a) => a.on_timer(tcb)),* }
            }
        }
    };
}

// One line per algorithm: `Variant => module::Type`.
algorithms! {
    Reno => crate::reno::Reno,
    Scalable => crate::scalable::Scalable,
    HighSpeed => crate::highspeed::HighSpeed,
    Htcp => crate::htcp::Htcp,
    Bic => crate::bic::Bic,
    Cubic => crate::cubic::Cubic,
    Vegas => crate::vegas::Vegas,
    Fast => crate::fast::Fast,
    Westwood => crate::westwood::Westwood,
    Africa => crate::africa::Africa,
    Compound => crate::compound::Compound,
    Illinois => crate::illinois::Illinois,
    Fusion => crate::fusion::Fusion,
    Yeah => crate::yeah::Yeah,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builds_by_name_with_overrides() {
        let a = build("reno", &json!({"beta": 0.7})).unwrap();
        assert_eq!(a.name(), "reno");
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let e = build("cubik", &serde_json::Value::Null).unwrap_err();
        assert_eq!(e.field, "algorithm");
        assert!(e.message.contains("unknown algorithm 'cubik'"));
        assert!(e.message.contains("reno"));
    }

    #[test]
    fn bad_override_names_the_field() {
        let e = build("reno", &json!({"beta": 1.5})).unwrap_err();
        assert_eq!(e.field, "beta");
        assert!(e.message.contains("allowed"));
        let e = build("reno", &json!({"bta": 0.5})).unwrap_err();
        assert!(e.message.contains("unknown field `bta`"), "{e}");
    }

    #[test]
    fn rate_halving_floors_follow_the_2_6_modules() {
        // Linux 2.6 tcp_cong.c: tcp_reno_min_cwnd = ssthresh / 2 (integer) for
        // modules that set it; BIC, CUBIC and H-TCP set none, so tcp_cwnd_min
        // gave ssthresh; Westwood+ its bw x RTTmin, 2 packets before any
        // sample.
        let tcb = Tcb::new(100.0, 81.0, 1448);
        for (name, floor) in [
            ("reno", 40.0),
            ("scalable", 40.0),
            ("highspeed", 40.0),
            ("illinois", 40.0),
            ("yeah", 40.0),
            ("bic", 81.0),
            ("cubic", 81.0),
            ("htcp", 81.0),
            ("westwood", 2.0),
        ] {
            let a = build(name, &serde_json::Value::Null).unwrap();
            assert_eq!(a.min_cwnd(&tcb), floor, "{name}");
        }
    }

    #[test]
    fn catalog_has_every_parameter_documented() {
        for info in catalog() {
            let fields = info.defaults.as_object().expect("params are an object");
            let documented: Vec<&str> = info.docs.iter().map(|d| d.name).collect();
            for name in fields.keys() {
                assert!(
                    documented.contains(&name.as_str()),
                    "{}: {name} undocumented",
                    info.name
                );
            }
            assert_eq!(
                fields.len(),
                info.docs.len(),
                "{}: docs list extra names",
                info.name
            );
        }
    }
}
