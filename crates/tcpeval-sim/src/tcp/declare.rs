//! The `tcp_options!` macro: each TCP option is declared once (name, type,
//! default, unit, allowed range, meaning, source, and the engine field it
//! sets), and the macro writes everything else from that one entry:
//!
//! - [`TcpOptions`](super::config::TcpOptions), the scenario's `tcp` table
//!   (serde, every field optional; `if_set` fields are left out of the
//!   normalised scenario when unset, so older scenarios keep their hash);
//! - `TcpOptions::over`, merging a flow's options over the scenario's;
//! - [`TcpConfig`](super::config::TcpConfig), the resolved options in engine
//!   units, and its `Default` (each option's default through its conversion);
//! - `TcpOptions::resolve`, checking each set option's range (the error
//!   names the field and the range) in declaration order;
//! - [`OPTIONS`](super::config::OPTIONS) and
//!   [`option_defaults`](super::config::option_defaults), the listing behind
//!   `tcpeval tcp-options` and `tcpeval.tcp_options()`.
//!
//! Platform presets (`platform.rs`) set options by name through the serde
//! form, so they need nothing of their own.

/// One TCP option as the listing shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptionDoc {
    /// Name in a scenario's `tcp` table.
    pub name: &'static str,
    /// Value type as written in a scenario (`bool`, `u32`, `f64`, an enum's names).
    pub kind: &'static str,
    /// Unit (`ms`, `packets`, `bytes`; empty for none).
    pub unit: &'static str,
    /// The default, as JSON text.
    pub default: &'static str,
    /// Allowed range, inclusive, if numeric.
    pub range: Option<(f64, f64)>,
    /// Meaning.
    pub doc: &'static str,
    /// Where the behaviour and the default come from.
    pub source: &'static str,
}

/// A value checked against a numeric range (the algorithms' trait, shared).
pub(crate) use tcpeval_cc::params::AsF64;

/// Declares the TCP options; see the module documentation. Each entry:
///
/// ```text
/// /// Meaning.
/// name: Type = default, unit "..", range (lo, hi) | none, always | if_set,
///     source "..", => [field: FieldType as same | ms | custom(f)] | [none];
/// ```
///
/// `as same` copies the value into the engine field, `as ms` turns
/// milliseconds into [`Time`](crate::time::Time), `as custom(f)` calls
/// `f(options, &mut config, at, range)` at the option's place in the
/// resolution order, for options resolved together (the receive window);
/// `[none]`: such a function resolves this option too. `if_set` options are
/// left out of the normalised scenario when unset (they came after the
/// first stored runs, whose scenario hashes must not change).
macro_rules! tcp_options {
    (
        engine { $($(#[doc = $edoc:literal])* $efield:ident: $ety:ty = $edefault:expr;)* }
        $(
            $(#[doc = $doc:literal])*
            $name:ident: $ty:ty = $default:expr, unit $unit:tt, range $range:tt, $ser:ident,
                source $source:literal, => $target:tt;
        )*
    ) => {
        $crate::tcp::declare::tcp_options!(@options [] $({
            [$(#[doc = $doc])*
             #[doc = concat!("\n\nDefault `", stringify!($default), "`",
                 $crate::tcp::declare::tcp_options!(@unit_doc $unit),
                 $crate::tcp::declare::tcp_options!(@range_doc $range), ".")]]
            $name $ty, $ser
        })*);
        $crate::tcp::declare::tcp_options!(@config
            [$($(#[doc = $edoc])* pub $efield: $ety,)*]
            [$($efield: $edefault,)*]
            $({ [$(#[doc = $doc])*] $default, $target })*);

        impl TcpOptions {
            /// `self` with unset fields taken from `base`.
            pub fn over(&self, base: &TcpOptions) -> TcpOptions {
                TcpOptions { $($name: self.$name.clone().or(base.$name.clone())),* }
            }

            /// Checks and resolves to a [`TcpConfig`] for data packets of
            /// `packet_size` bytes; `at` is the field path prefix (`flows[0].tcp`).
            /// Options are checked in declaration order, then together.
            pub fn resolve(
                &self,
                at: &str,
                packet_size: u32,
            ) -> Result<TcpConfig, $crate::scenario::ScenarioError> {
                let mut c = TcpConfig { packet_size, ..TcpConfig::default() };
                $($crate::tcp::declare::tcp_options!(@apply self, c, at, $name, $range, $target);)*
                Self::check_together(&c, at)?;
                Ok(c)
            }
        }

        /// Every TCP option, in declaration order.
        pub const OPTIONS: &[$crate::tcp::declare::OptionDoc] = &[
            $($crate::tcp::declare::OptionDoc {
                name: stringify!($name),
                kind: stringify!($ty),
                unit: $unit,
                default: stringify!($default),
                range: $crate::tcp::declare::tcp_options!(@range_value $range),
                doc: concat!($($doc, "\n",)*),
                source: $source,
            },)*
        ];

        /// Every option's default as a scenario writes it (JSON; an
        /// infinite value shows as `null`).
        pub fn option_defaults() -> serde_json::Value {
            serde_json::to_value(TcpOptions { $($name: Some($default)),* })
                .expect("TCP options serialize")
        }
    };

    // TcpOptions: one optional field per option.
    (@options [$($fields:tt)*]) => {
        /// TCP options as a scenario gives them (the `tcp` table of a
        /// scenario, a flow or a generator): every field optional; a flow's
        /// values override the scenario's, which override the platform
        /// preset's, which override the defaults.
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct TcpOptions { $($fields)* }
    };
    (@options [$($fields:tt)*] { [$($doc:tt)*] $name:ident $ty:ty, always } $($rest:tt)*) => {
        $crate::tcp::declare::tcp_options!(@options [$($fields)* $($doc)* pub $name: Option<$ty>,] $($rest)*);
    };
    (@options [$($fields:tt)*] { [$($doc:tt)*] $name:ident $ty:ty, if_set } $($rest:tt)*) => {
        $crate::tcp::declare::tcp_options!(@options [$($fields)* $($doc)*
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub $name: Option<$ty>,] $($rest)*);
    };

    // TcpConfig: the engine fields, then one field per option that has one.
    (@config [$($fields:tt)*] [$($defaults:tt)*]) => {
        /// TCP options of one flow, resolved to engine units.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct TcpConfig { $($fields)* }

        impl Default for TcpConfig {
            fn default() -> Self {
                TcpConfig { $($defaults)* }
            }
        }
    };
    (@config [$($fields:tt)*] [$($defaults:tt)*]
        { [$($doc:tt)*] $default:expr, [$field:ident: $fty:ty as $conv:ident] } $($rest:tt)*) => {
        $crate::tcp::declare::tcp_options!(@config [$($fields)* $($doc)* pub $field: $fty,]
            [$($defaults)* $field: $crate::tcp::declare::tcp_options!(@convert $conv, $default),]
            $($rest)*);
    };
    (@config [$($fields:tt)*] [$($defaults:tt)*]
        { [$($doc:tt)*] $default:expr, [$field:ident: $fty:ty as custom($f:path)] } $($rest:tt)*) => {
        $crate::tcp::declare::tcp_options!(@config [$($fields)* $($doc)* pub $field: $fty,]
            [$($defaults)* $field: $default,] $($rest)*);
    };
    (@config [$($fields:tt)*] [$($defaults:tt)*]
        { [$($doc:tt)*] $default:expr, [none] } $($rest:tt)*) => {
        $crate::tcp::declare::tcp_options!(@config [$($fields)*] [$($defaults)*] $($rest)*);
    };

    (@unit_doc "") => { "" };
    (@unit_doc $unit:tt) => { concat!(" ", $unit) };
    (@range_doc none) => { "" };
    (@range_doc ($lo:expr, $hi:expr)) => { concat!("; allowed ", stringify!($lo), " ..= ", stringify!($hi)) };
    (@range_value none) => { None };
    (@range_value ($lo:expr, $hi:expr)) => { Some(($lo, $hi)) };

    (@convert same, $v:expr) => { $v };
    (@convert ms, $v:expr) => { $crate::time::Time::from_secs_f64($v / 1e3) };

    (@apply $opts:ident, $c:ident, $at:ident, $name:ident, $range:tt, [none]) => {};
    (@apply $opts:ident, $c:ident, $at:ident, $name:ident, $range:tt, [$field:ident: $fty:ty as custom($f:path)]) => {
        $f($opts, &mut $c, $at, $crate::tcp::declare::tcp_options!(@range_value $range))?;
    };
    (@apply $opts:ident, $c:ident, $at:ident, $name:ident, $range:tt, [$field:ident: $fty:ty as $conv:ident]) => {
        if let Some(v) = $opts.$name {
            $crate::tcp::declare::tcp_options!(@check $at, $name, v, $range);
            $c.$field = $crate::tcp::declare::tcp_options!(@convert $conv, v);
        }
    };
    (@check $at:ident, $name:ident, $v:ident, none) => {};
    (@check $at:ident, $name:ident, $v:ident, ($lo:expr, $hi:expr)) => {
        $crate::scenario::check(
            &format!("{}.{}", $at, stringify!($name)),
            $crate::tcp::declare::AsF64::as_f64($v),
            $lo,
            $hi,
        )?;
    };
}

pub(crate) use tcp_options;
