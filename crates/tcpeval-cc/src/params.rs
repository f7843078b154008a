//! Typed, named, overridable algorithm parameters.
//!
//! Every algorithm has a `*Params` struct: serde gives overriding by name
//! from a scenario (`{"beta": 0.8}`) with unknown names rejected, and the
//! default values for `tcpeval algorithms`; [`ParamSet::DOCS`] gives each
//! field's meaning and unit, [`ParamSet::validate`] its allowed range.
//! The `params!` macro writes all of these from one declaration per parameter
//! (BIC, CUBIC and YeAH still spell them out by hand).

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;

/// The documentation of one parameter.
#[derive(Clone, Copy, Debug)]
pub struct ParamDoc {
    /// Field name as written in a scenario file.
    pub name: &'static str,
    /// Meaning, unit and source of the default.
    pub doc: &'static str,
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
    const DOCS: &'static [ParamDoc];
    /// Checks every field's range; the error names the field and the allowed range.
    fn validate(&self) -> Result<(), ParamError>;
}

/// Fails unless `lo <= value <= hi` (and `value` is finite).
pub fn check_range(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(ParamError::new(
            field,
            format!("{value} is out of range; allowed {lo} ..= {hi}"),
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
            format!("{value} is out of range; allowed {lo} < value <= {hi}"),
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
    const DOCS: &'static [ParamDoc] = &[];
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
/// default, allowed range and doc (meaning, unit, source of the default),
/// from which the macro writes the `*Params` struct (serde: overridable by
/// name, unknown names rejected), its `Default`, [`ParamSet::DOCS`] (the
/// `tcpeval algorithms` listing) and [`ParamSet::validate`]:
///
/// ```text
/// params! {
///     /// What the set is.
///     pub struct NameParams for |p| {
///         name: Type = default, closed(lo, hi), "doc";      // lo <= v <= hi
///         name: Type = default, open_low(lo, hi), "doc";    // lo < v <= hi
///         name: Type = default, unchecked, "doc";           // enums, flags
///         name: Type = default, with { statements }, "doc"; // anything else
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
            $($field:ident: $ty:ty = $default:expr, $check:ident $args:tt, $doc:literal;)*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $(#[doc = $doc] pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::params::ParamSet for $name {
            const DOCS: &'static [$crate::params::ParamDoc] = &[
                $($crate::params::ParamDoc { name: stringify!($field), doc: $doc },)*
            ];
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
    (@check $p:ident, $field:ident, unchecked ()) => {};
    (@check $p:ident, $field:ident, with $block:block) => {
        $block
    };
}

pub(crate) use params;
