//! The list of algorithms: one line per algorithm in [`algorithms!`] gives the
//! [`Algorithm`] enum (static dispatch in the simulator's hot path), building
//! by name with parameter overrides, and the catalog for `tcpeval algorithms`.

#[cfg(test)]
use crate::params::ParamRange;
use crate::params::{parse_overrides, ParamDoc, ParamError, ParamSet};
use crate::{
    AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, RateSample, Tcb,
    Time,
};

/// One algorithm's entry in the catalog.
#[derive(Clone, Debug)]
pub struct AlgorithmInfo {
    /// Registry name.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Default parameter values, as a JSON object.
    pub defaults: serde_json::Value,
    /// Each parameter's type, default, range, unit, meaning and source, in
    /// declaration order.
    pub params: Vec<ParamDoc>,
}

fn info<A: NamedAlgorithm>() -> AlgorithmInfo {
    AlgorithmInfo {
        name: A::NAME,
        summary: A::SUMMARY,
        defaults: serde_json::to_value(A::Params::default()).expect("parameters serialize"),
        params: <A::Params as ParamSet>::docs(),
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

            /// The algorithm needs ECN ([`NamedAlgorithm::NEEDS_ECN`]).
            pub fn needs_ecn(&self) -> bool {
                match self { $(Algorithm::$variant(_) => <$ty as NamedAlgorithm>::NEEDS_ECN),* }
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
            #[inline]
            fn has_cong_control(&self) -> bool {
                match self { $(Algorithm::$variant(a) => a.has_cong_control()),* }
            }
            fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
                match self { $(Algorithm::$variant(a) => a.cong_control(tcb, rs)),* }
            }
            fn set_random_seed(&mut self, seed: u64) {
                match self { $(Algorithm::$variant(a) => a.set_random_seed(seed)),* }
            }
            fn uses_random_seed(&self) -> bool {
                match self { $(Algorithm::$variant(a) => a.uses_random_seed()),* }
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
    Dctcp => crate::dctcp::Dctcp,
    Bbr => crate::bbr::Bbr,
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
    fn catalog_lists_every_parameter_once_with_its_default() {
        for info in catalog() {
            let defaults = info.defaults.as_object().expect("params are an object");
            let listed: Vec<&str> = info.params.iter().map(|d| d.name).collect();
            let fields: Vec<&str> = defaults.keys().map(String::as_str).collect();
            let mut sorted = listed.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(
                sorted.len(),
                listed.len(),
                "{}: a name listed twice",
                info.name
            );
            let mut fields_sorted = fields.clone();
            fields_sorted.sort_unstable();
            assert_eq!(
                sorted, fields_sorted,
                "{}: listing != struct fields",
                info.name
            );
            for d in &info.params {
                assert_eq!(&d.default, &defaults[d.name], "{}.{}", info.name, d.name);
            }
        }
    }

    #[test]
    fn every_parameter_states_doc_source_and_range_or_why_none() {
        // Issue 16 part 2: meaning, unit, source and range are separate
        // facts of each parameter; a missing one is a declaration to fix.
        let mut count = 0;
        for info in catalog() {
            for d in &info.params {
                let at = format!("{}.{}", info.name, d.name);
                assert!(!d.doc.trim().is_empty(), "{at}: empty doc");
                assert!(!d.source.trim().is_empty(), "{at}: empty source");
                assert!(!d.ty.is_empty(), "{at}: no type");
                assert_eq!(d.unit, d.unit.trim(), "{at}: unit has spaces around it");
                match d.range {
                    ParamRange::Closed { lo, hi } | ParamRange::OpenLow { lo, hi } => {
                        assert!(!lo.is_empty() && !hi.is_empty(), "{at}: empty bound");
                    }
                    ParamRange::Custom(text) | ParamRange::Unchecked(text) => {
                        assert!(!text.trim().is_empty(), "{at}: no description of the check");
                    }
                }
                count += 1;
            }
        }
        assert!(count > 100, "only {count} parameters listed");
    }

    #[test]
    fn listed_range_is_the_range_validation_enforces() {
        // The listing reads the bounds from the check itself: a value just
        // outside a constant bound is rejected, the bound itself accepted
        // (closed) or rejected (open_low's lower end).
        let reno_beta = catalog()
            .into_iter()
            .find(|a| a.name == "reno")
            .unwrap()
            .params
            .into_iter()
            .find(|d| d.name == "beta")
            .unwrap();
        assert_eq!(
            reno_beta.range,
            ParamRange::OpenLow {
                lo: "0.0",
                hi: "1.0"
            }
        );
        assert_eq!(reno_beta.range.to_string(), "(0.0, 1.0]");
        assert!(build("reno", &json!({"beta": 0.0})).is_err());
        assert!(build("reno", &json!({"beta": 1.0})).is_ok());
        let cubic = catalog().into_iter().find(|a| a.name == "cubic").unwrap();
        let shift = cubic
            .params
            .iter()
            .find(|d| d.name == "delay_min_shift")
            .unwrap();
        assert_eq!(
            shift.range,
            ParamRange::Closed {
                lo: "0.0",
                hi: "16.0"
            }
        );
        assert!(build("cubic", &json!({"delay_min_shift": 16})).is_ok());
        assert!(build("cubic", &json!({"delay_min_shift": 17})).is_err());
        // A bound naming another parameter is shown by that parameter's name.
        let hs = catalog()
            .into_iter()
            .find(|a| a.name == "highspeed")
            .unwrap();
        let high = hs.params.iter().find(|d| d.name == "high_window").unwrap();
        assert_eq!(high.range.to_string(), "(low_window, 1e12]");
    }
}
