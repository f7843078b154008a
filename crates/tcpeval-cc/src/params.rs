//! Typed, named, overridable algorithm parameters.
//!
//! Every algorithm has a `*Params` struct: serde gives overriding by name
//! from a scenario (`{"beta": 0.8}`) with unknown names rejected, and the
//! default values; [`ParamSet::docs`] lists each field's type, default,
//! allowed range, unit, meaning and the source of its default (the
//! `tcpeval algorithms` listing), [`ParamSet::validate`] checks the range.
//! The `params!` macro writes all of these from one declaration per
//! parameter, so the range shown is the range checked.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;

/// The values a parameter accepts, as its range check in `params!` states
/// them. Bounds are the declaration's expressions as written (a bound may
/// name another parameter, e.g. `low_window + 1.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamRange {
    /// `lo <= value <= hi` (`closed(lo, hi)`).
    Closed {
        /// Lower bound, included.
        lo: &'static str,
        /// Upper bound, included.
        hi: &'static str,
    },
    /// `lo < value <= hi` (`open_low(lo, hi)`).
    OpenLow {
        /// Lower bound, excluded.
        lo: &'static str,
        /// Upper bound, included.
        hi: &'static str,
    },
    /// Checked by a `with` block; what it allows, in words.
    Custom(&'static str),
    /// Not range-checked (`unchecked("why")`): why no check is needed.
    Unchecked(&'static str),
}

impl ParamRange {
    /// `"closed"`, `"open_low"`, `"custom"` or `"unchecked"`.
    pub fn kind(&self) -> &'static str {
        match self {
            ParamRange::Closed { .. } => "closed",
            ParamRange::OpenLow { .. } => "open_low",
            ParamRange::Custom(_) => "custom",
            ParamRange::Unchecked(_) => "unchecked",
        }
    }

    /// The bounds of a `closed` or `open_low` check as shown to a user:
    /// the declared expressions without the `p.` that names another
    /// parameter (`low_window + 1.0`); `None` for a custom or no check.
    pub fn bounds(&self) -> Option<(String, String)> {
        match self {
            ParamRange::Closed { lo, hi } | ParamRange::OpenLow { lo, hi } => {
                Some((shown(lo), shown(hi)))
            }
            ParamRange::Custom(_) | ParamRange::Unchecked(_) => None,
        }
    }
}

impl fmt::Display for ParamRange {
    /// `[lo, hi]` (closed), `(lo, hi]` (open_low), or the description of a
    /// custom check or of why there is none.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamRange::Closed { lo, hi } => write!(f, "[{}, {}]", shown(lo), shown(hi)),
            ParamRange::OpenLow { lo, hi } => write!(f, "({}, {}]", shown(lo), shown(hi)),
            ParamRange::Custom(text) => write!(f, "{text}"),
            ParamRange::Unchecked(why) => write!(f, "{why} (unchecked)"),
        }
    }
}

/// A declared bound as shown to a user: without the `p.` that names another
/// parameter in the declaration.
fn shown(bound: &str) -> String {
    bound.replace("p.", "")
}

/// The documentation of one parameter, made by `params!` from its
/// declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDoc {
    /// Field name as written in a scenario file.
    pub name: &'static str,
    /// Rust type as declared (`f64`, `u32`, `bool`, an enum's name, ...).
    pub ty: &'static str,
    /// Default value, as it serializes in a scenario (JSON).
    pub default: serde_json::Value,
    /// Allowed values, from the range check.
    pub range: ParamRange,
    /// Unit of the value (`packets`, `s`, `ms`, `fraction`, ...); empty
    /// when it has none (flags, choices, counts of events).
    pub unit: &'static str,
    /// Meaning.
    pub doc: &'static str,
    /// Primary source of the default (Linux file/function, RFC section,
    /// paper/equation), or that it is this project's own choice.
    pub source: &'static str,
}

/// A parameter value outside its allowed range, or a malformed override.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// Parameter name (empty when the whole override set is malformed).
    pub field: String,
    /// What is wrong and which values are allowed.
    pub message: String,
}

impl ParamError {
    /// An error naming `field`.
    pub fn new(field: &str, message: impl Into<String>) -> Self {
        ParamError {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ParamError {}

/// A struct of algorithm parameters.
///
/// Declare it with `params!`; by hand, implementors derive `Serialize`,
/// `Deserialize` with `#[serde(default, deny_unknown_fields)]`, and
/// `Default`.
pub trait ParamSet: Default + Clone + Serialize + DeserializeOwned + fmt::Debug {
    /// One entry per field, in declaration order.
    fn docs() -> Vec<ParamDoc>;
    /// Checks every field's range; the error names the field and the allowed range.
    fn validate(&self) -> Result<(), ParamError>;
}

/// A number as an error message shows it: plain for everyday magnitudes,
/// in exponent form outside `[1e-6, 1e9)` (a `1e308` typed by a user comes
/// back as `1e308`, not as its 309 digits).
#[derive(Clone, Copy, Debug)]
pub struct Shown(pub f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let magnitude = self.0.abs();
        if self.0.is_finite() && magnitude != 0.0 && !(1e-6..1e9).contains(&magnitude) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// Fails unless `lo <= value <= hi` (and `value` is finite).
pub fn check_range(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(ParamError::new(
            field,
            format!(
                "{} is out of range; allowed {} ..= {}",
                Shown(value),
                Shown(lo),
                Shown(hi)
            ),
        ))
    }
}

/// Fails unless `lo < value <= hi` (and `value` is finite).
pub fn check_range_open_low(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if value.is_finite() && value > lo && value <= hi {
        Ok(())
    } else {
        Err(ParamError::new(
            field,
            format!(
                "{} is out of range; allowed {} < value <= {}",
                Shown(value),
                Shown(lo),
                Shown(hi)
            ),
        ))
    }
}

/// Parses parameter overrides (a JSON object) over the defaults and validates them.
pub fn parse_overrides<P: ParamSet>(overrides: &serde_json::Value) -> Result<P, ParamError> {
    let params: P = if overrides.is_null() {
        P::default()
    } else {
        serde_json::from_value(overrides.clone()).map_err(|e| ParamError::new("", e.to_string()))?
    };
    params.validate()?;
    Ok(params)
}

/// A parameter set with no parameters.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NoParams {}

impl ParamSet for NoParams {
    fn docs() -> Vec<ParamDoc> {
        Vec::new()
    }
    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }
}

/// A parameter value checked against a numeric range.
pub trait AsF64: Copy {
    /// The value as `f64`.
    fn as_f64(self) -> f64;
}
impl AsF64 for u32 {
    fn as_f64(self) -> f64 {
        f64::from(self)
    }
}
impl AsF64 for u64 {
    fn as_f64(self) -> f64 {
        self as f64
    }
}
impl AsF64 for f64 {
    fn as_f64(self) -> f64 {
        self
    }
}

/// Declares an algorithm's parameters once: each with its name, type,
/// default, range check, unit, doc (meaning) and source (of the default),
/// from which the macro writes the `*Params` struct (serde: overridable by
/// name, unknown names rejected), its `Default`, [`ParamSet::docs`] (the
/// `tcpeval algorithms` listing, whose range is read from the check) and
/// [`ParamSet::validate`]:
///
/// ```text
/// params! {
///     /// What the set is.
///     pub struct NameParams for |p| {
///         /// Meaning (doc comment lines).
///         name: Type = default, closed(lo, hi),            // lo <= v <= hi
///             unit "packets", source "Linux tcp_x.c: X";
///         name: Type = default, open_low(lo, hi), ...;     // lo < v <= hi
///         name: Type = default, unchecked("why"), ...;     // enums, flags
///         name: Type = default, with("allowed values", { statements }), ...;
///     }
/// }
/// ```
///
/// Bounds and `with` statements may read the other parameters as `p.name`.
/// Fields are checked in declaration order; the error names the field and
/// the allowed range.
macro_rules! params {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident for |$p:ident| {
            $(
                $(#[doc = $doc:literal])+
                $field:ident: $ty:ty = $default:expr, $check:ident $args:tt,
                    unit $unit:literal, source $source:literal;
            )*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $($(#[doc = $doc])+ pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::params::ParamSet for $name {
            fn docs() -> Vec<$crate::params::ParamDoc> {
                let defaults = <$name as Default>::default();
                vec![$($crate::params::ParamDoc {
                    name: stringify!($field),
                    ty: stringify!($ty),
                    default: serde_json::to_value(&defaults.$field)
                        .expect("a parameter default serializes"),
                    range: $crate::params::params!(@range $check $args),
                    unit: $unit,
                    doc: concat!($($doc, "\n"),+).trim(),
                    source: $source,
                },)*]
            }
            #[allow(unused_variables)]
            fn validate(&self) -> Result<(), $crate::params::ParamError> {
                let $p = self;
                $($crate::params::params!(@check $p, $field, $check $args);)*
                Ok(())
            }
        }
    };
    (@check $p:ident, $field:ident, closed($lo:expr, $hi:expr)) => {
        $crate::params::check_range(
            stringify!($field),
            $crate::params::AsF64::as_f64($p.$field),
            $lo,
            $hi,
        )?;
    };
    (@check $p:ident, $field:ident, open_low($lo:expr, $hi:expr)) => {
        $crate::params::check_range_open_low(
            stringify!($field),
            $crate::params::AsF64::as_f64($p.$field),
            $lo,
            $hi,
        )?;
    };
    (@check $p:ident, $field:ident, unchecked($why:literal)) => {};
    (@check $p:ident, $field:ident, with($what:literal, $block:block)) => {
        $block
    };
    (@range closed($lo:expr, $hi:expr)) => {
        $crate::params::ParamRange::Closed { lo: stringify!($lo), hi: stringify!($hi) }
    };
    (@range open_low($lo:expr, $hi:expr)) => {
        $crate::params::ParamRange::OpenLow { lo: stringify!($lo), hi: stringify!($hi) }
    };
    (@range unchecked($why:literal)) => {
        $crate::params::ParamRange::Unchecked($why)
    };
    (@range with($what:literal, $block:block)) => {
        $crate::params::ParamRange::Custom($what)
    };
}

pub(crate) use params;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_numbers_use_exponent_form_only_at_extreme_magnitudes() {
        let shown = |v: f64| Shown(v).to_string();
        assert_eq!(shown(1e308), "1e308");
        assert_eq!(shown(-2.5e-12), "-2.5e-12");
        assert_eq!(shown(1e9), "1e9");
        assert_eq!(shown(999_999_999.0), "999999999");
        assert_eq!(shown(0.001), "0.001");
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(f64::INFINITY), "inf");
        assert_eq!(shown(f64::NAN), "NaN");
    }

    #[test]
    fn a_range_error_shows_a_huge_value_in_exponent_form() {
        let e = check_range("x", 1e308, 0.0, 1e6).unwrap_err();
        assert!(
            e.to_string()
                .contains("1e308 is out of range; allowed 0 ..= 1000000"),
            "{e}"
        );
    }
}
