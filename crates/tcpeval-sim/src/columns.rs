//! Result columns, declared once. Each series table (see [`crate::probe`])
//! is written as a [`table!`] with one field per column (name, element
//! type, doc with its unit); the macro makes the struct, the column list
//! ([`Table::COLUMNS`]), the hand-over as typed vectors
//! ([`Table::into_columns`], which the PyO3 layer turns into numpy arrays
//! without naming a column) and the Python `TypedDict` in
//! `python/tcpeval/_core.pyi` ([`TableSchema::pyi`], kept equal by a test).
//! Each summary row (a flow's, link's or class's totals, see
//! [`crate::results`]) is a [`record!`] the same way: [`Record::row`] gives
//! its named cells. [`schema`] lists every table once.

/// One column's values, handed over once at the end of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// Floating point.
    F64(Vec<f64>),
    /// Unsigned 32-bit.
    U32(Vec<u32>),
    /// Unsigned 64-bit.
    U64(Vec<u64>),
    /// Signed 64-bit.
    I64(Vec<i64>),
}

macro_rules! column_from {
    ($($ty:ty => $variant:ident),*) => {
        $(impl From<Vec<$ty>> for ColumnData {
            fn from(v: Vec<$ty>) -> Self {
                ColumnData::$variant(v)
            }
        })*
    };
}
column_from!(f64 => F64, u32 => U32, u64 => U64, i64 => I64);

/// A declared column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Name, as Python and the stored tables see it.
    pub name: &'static str,
    /// Element type (`f64`, `u32`, `u64`, `i64`).
    pub dtype: &'static str,
    /// Meaning and unit.
    pub doc: &'static str,
}

/// A table of equal-length columns.
pub trait Table {
    /// The table's key in a run's results (`flow_series`).
    const KEY: &'static str;
    /// The Python `TypedDict` name.
    const TYPE_NAME: &'static str;
    /// What one row is.
    const DOC: &'static str;
    /// The columns, in order.
    const COLUMNS: &'static [Column];
    /// The columns' values, in order.
    fn into_columns(self) -> Vec<(&'static str, ColumnData)>;
}

/// Declares a series table: `table! { /// doc  pub struct Name as "key" {
/// /// doc  pub column: Vec<T>, ... } }` (see the module documentation).
macro_rules! table {
    (
        $(#[doc = $tdoc:literal])*
        pub struct $name:ident as $key:literal {
            $($(#[doc = $doc:literal])* pub $field:ident: Vec<$ty:ident>,)*
        }
    ) => {
        $(#[doc = $tdoc])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
        pub struct $name {
            $($(#[doc = $doc])* pub $field: Vec<$ty>,)*
        }

        impl $crate::columns::Table for $name {
            const KEY: &'static str = $key;
            const TYPE_NAME: &'static str = stringify!($name);
            const DOC: &'static str = concat!($($tdoc, "\n",)*);
            const COLUMNS: &'static [$crate::columns::Column] = &[$(
                $crate::columns::Column {
                    name: stringify!($field),
                    dtype: stringify!($ty),
                    doc: concat!($($doc, "\n",)*),
                },
            )*];
            fn into_columns(self) -> Vec<(&'static str, $crate::columns::ColumnData)> {
                vec![$((stringify!($field), self.$field.into())),*]
            }
        }
    };
}
pub(crate) use table;

/// One cell of a summary row (a flow's, a link's, a class's totals).
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text.
    Str(String),
    /// A flag.
    Bool(bool),
    /// A count.
    U64(u64),
    /// A measure.
    F64(f64),
    /// A count, if any.
    OptU64(Option<u64>),
    /// A measure, if any.
    OptF64(Option<f64>),
}

/// A value that fills cells of a summary row: a scalar fills one, a
/// [`record!`] fills one per field (nested records are flattened).
pub trait Row {
    /// Appends the cells of this value, named `name` if it is a scalar.
    fn cells(&self, name: &'static str, out: &mut Vec<(&'static str, Cell)>);
    /// Appends the columns it fills: name, Python type, doc.
    fn columns(name: &'static str, doc: &'static str, out: &mut Vec<Column>);
}

macro_rules! scalar_cells {
    ($($ty:ty => $py:literal, |$v:ident| $cell:expr;)*) => {
        $(impl Row for $ty {
            fn cells(&self, name: &'static str, out: &mut Vec<(&'static str, Cell)>) {
                let $v = self;
                out.push((name, $cell));
            }
            fn columns(name: &'static str, doc: &'static str, out: &mut Vec<Column>) {
                out.push(Column { name, dtype: $py, doc });
            }
        })*
    };
}
scalar_cells! {
    String => "str", |v| Cell::Str(v.clone());
    bool => "bool", |v| Cell::Bool(*v);
    u32 => "int", |v| Cell::U64(u64::from(*v));
    u64 => "int", |v| Cell::U64(*v);
    usize => "int", |v| Cell::U64(*v as u64);
    f64 => "float", |v| Cell::F64(*v);
    Option<u32> => "int | None", |v| Cell::OptU64(v.map(u64::from));
    Option<u64> => "int | None", |v| Cell::OptU64(*v);
    Option<f64> => "float | None", |v| Cell::OptF64(*v);
}

/// A summary table: one [`record!`] per row.
pub trait Record: Row {
    /// The table's key in a run's results (`flows`).
    const KEY: &'static str;
    /// The Python `TypedDict` name of a row.
    const TYPE_NAME: &'static str;
    /// What one row is.
    const DOC: &'static str;
    /// The row's cells, in column order.
    fn row(&self) -> Vec<(&'static str, Cell)> {
        let mut out = Vec::new();
        self.cells("", &mut out);
        out
    }
    /// The row's columns, in order.
    fn row_columns() -> Vec<Column> {
        let mut out = Vec::new();
        Self::columns("", "", &mut out);
        out
    }
}

/// Declares a summary record: a struct whose fields are the columns of a
/// row (a field `=> "name"` is exported under that name; a field that is
/// itself a record is flattened into its columns), its [`Row`] impl, and,
/// with `as "key" => TypeName`, its [`Record`] impl.
macro_rules! record {
    (
        $(#[doc = $tdoc:literal])*
        #[derive($($derive:ident),*)]
        pub struct $name:ident as $key:literal => $type_name:ident { $($fields:tt)* }
    ) => {
        $crate::columns::record! {
            $(#[doc = $tdoc])*
            #[derive($($derive),*)]
            pub struct $name { $($fields)* }
        }

        impl $crate::columns::Record for $name {
            const KEY: &'static str = $key;
            const TYPE_NAME: &'static str = stringify!($type_name);
            const DOC: &'static str = concat!($($tdoc, "\n",)*);
        }
    };
    (
        $(#[doc = $tdoc:literal])*
        #[derive($($derive:ident),*)]
        pub struct $name:ident {
            $($(#[doc = $doc:literal])* pub $field:ident: $ty:ty $(=> $py:tt)?,)*
        }
    ) => {
        $(#[doc = $tdoc])*
        #[derive($($derive),*)]
        pub struct $name {
            $($(#[doc = $doc])* pub $field: $ty,)*
        }

        impl $crate::columns::Row for $name {
            fn cells(
                &self,
                _name: &'static str,
                out: &mut Vec<(&'static str, $crate::columns::Cell)>,
            ) {
                $($crate::columns::Row::cells(
                    &self.$field,
                    $crate::columns::record!(@py $field $($py)?),
                    out,
                );)*
            }
            fn columns(
                _name: &'static str,
                _doc: &'static str,
                out: &mut Vec<$crate::columns::Column>,
            ) {
                $(<$ty as $crate::columns::Row>::columns(
                    $crate::columns::record!(@py $field $($py)?),
                    concat!($($doc, "\n",)*),
                    out,
                );)*
            }
        }
    };
    (@py $field:ident) => { stringify!($field) };
    (@py $field:ident $py:literal) => { $py };
}
pub(crate) use record;

/// A result table as described to users: its key in a run's results, its
/// Python `TypedDict` name, what a row is, and its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct TableSchema {
    /// Key in a run's results (`flow_series`, `flows`).
    pub key: &'static str,
    /// Python `TypedDict` name.
    pub type_name: &'static str,
    /// What one row is.
    pub doc: &'static str,
    /// The columns, in order (element type: Rust's for a series table,
    /// Python's for a summary row).
    pub columns: Vec<Column>,
    /// A series table (numpy columns) rather than summary rows (dicts).
    pub series: bool,
}

impl TableSchema {
    /// The schema of series table `T`.
    pub fn of_table<T: Table>() -> Self {
        TableSchema {
            key: T::KEY,
            type_name: T::TYPE_NAME,
            doc: T::DOC,
            columns: T::COLUMNS.to_vec(),
            series: true,
        }
    }

    /// The schema of summary record `R`.
    pub fn of_record<R: Record>() -> Self {
        TableSchema {
            key: R::KEY,
            type_name: R::TYPE_NAME,
            doc: R::DOC,
            columns: R::row_columns(),
            series: false,
        }
    }

    /// Its Python `TypedDict`: numpy arrays for a series table, scalars for a row.
    pub fn pyi(&self) -> String {
        typed_dict(self.type_name, self.doc, &self.columns, |c| {
            if !self.series {
                return c.dtype.to_string();
            }
            let np = match c.dtype {
                "f64" => "np.float64",
                "u32" => "np.uint32",
                "u64" => "np.uint64",
                "i64" => "np.int64",
                other => unreachable!("no numpy type for {other}"),
            };
            format!("NDArray[{np}]")
        })
    }
}

/// Every result table of a run, series first: the one list the `.pyi` stubs
/// and `tcpeval results columns` are made from.
pub fn schema() -> Vec<TableSchema> {
    use crate::probe::{AqmSeries, ClassSeries, FlowSeries, QueueSeries, Transfers};
    use crate::results::{ClassSummary, FlowSummary, LinkSummary};
    vec![
        TableSchema::of_table::<FlowSeries>(),
        TableSchema::of_table::<QueueSeries>(),
        TableSchema::of_table::<AqmSeries>(),
        TableSchema::of_table::<ClassSeries>(),
        TableSchema::of_table::<Transfers>(),
        TableSchema::of_record::<ClassSummary>(),
        TableSchema::of_record::<FlowSummary>(),
        TableSchema::of_record::<LinkSummary>(),
    ]
}

/// A `TypedDict` named `name` with one key per column, each with its doc.
/// Columns named like a Python keyword (`class`) take the functional form,
/// the docs as comments.
fn typed_dict(name: &str, doc: &str, columns: &[Column], ty: impl Fn(&Column) -> String) -> String {
    let doc = one_line(doc);
    let mut s = String::new();
    if columns.iter().any(|c| PYTHON_KEYWORDS.contains(&c.name)) {
        s += &format!("# {doc}\n{name} = TypedDict(\n    \"{name}\",\n    {{\n");
        for c in columns {
            s += &format!("        # {}\n", one_line(c.doc));
            s += &format!("        \"{}\": {},\n", c.name, ty(c));
        }
        s += "    },\n)\n";
    } else {
        s += &format!("class {name}(TypedDict):\n    \"\"\"{doc}\"\"\"\n\n");
        for c in columns {
            s += &format!("    {}: {}\n", c.name, ty(c));
            s += &format!("    \"\"\"{}\"\"\"\n", one_line(c.doc));
        }
    }
    s
}

/// Names Python does not take as identifiers.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The generated block of `python/tcpeval/_core.pyi`: a `TypedDict` per
/// series table and per summary row.
pub fn pyi_block() -> String {
    schema()
        .iter()
        .map(TableSchema::pyi)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEGIN: &str = "# BEGIN generated from crates/tcpeval-sim/src/probe.rs";
    const END: &str = "# END generated";

    /// `python/tcpeval/_core.pyi` holds the generated block; run with
    /// `TCPEVAL_WRITE_PYI=1` to rewrite it after changing a column.
    #[test]
    fn python_stubs_match_the_declared_columns() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../python/tcpeval/_core.pyi"
        );
        let text = std::fs::read_to_string(path).expect("the stub file is in the repository");
        let (head, rest) = text
            .split_once(BEGIN)
            .expect("the stub has the begin marker");
        let (_, tail) = rest.split_once(END).expect("the stub has the end marker");
        let want = format!("{head}{BEGIN}\n\n{}\n{END}{tail}", pyi_block());
        if std::env::var_os("TCPEVAL_WRITE_PYI").is_some() {
            std::fs::write(path, &want).unwrap();
            return;
        }
        assert!(
            text == want,
            "python/tcpeval/_core.pyi is out of date; rerun this test with TCPEVAL_WRITE_PYI=1"
        );
    }

    #[test]
    fn columns_come_out_in_declaration_order() {
        use crate::probe::QueueSeries;
        let q = QueueSeries {
            time: vec![0.5],
            link: vec![2],
            qlen: vec![3],
            qbytes: vec![4500],
            departed_bytes: vec![9000],
            drops: vec![1],
        };
        let names: Vec<&str> = QueueSeries::COLUMNS.iter().map(|c| c.name).collect();
        let cols = q.into_columns();
        assert_eq!(names, cols.iter().map(|(n, _)| *n).collect::<Vec<_>>());
        assert_eq!(cols[1].1, ColumnData::U32(vec![2]));
        assert_eq!(cols[3].1, ColumnData::U64(vec![4500]));
    }
}
