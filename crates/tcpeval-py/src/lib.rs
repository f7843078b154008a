//! Thin PyO3 layer: scenario data (Python objects) in, numpy columns out. No logic of its own:
//! validation and simulation live in `tcpeval-sim`, algorithms in
//! `tcpeval-cc`. The GIL is released while the engine runs, so a thread pool
//! can run several simulations at once.

#[cfg(target_os = "linux")]
mod testbed;

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tcpeval_sim::columns::{Cell, ColumnData, Record, Table};
use tcpeval_sim::probe::{AqmSeries, ClassSeries, FlowSeries, QueueSeries, Transfers};
use tcpeval_sim::resolve::Resolved;
use tcpeval_sim::results::{ClassSummary, FlowSummary, LinkSummary, Results};
use tcpeval_sim::{from_deserializer, Scenario, ScenarioError, Time, World};

create_exception!(
    _core,
    ScenarioError_,
    PyValueError,
    "A scenario field is missing, malformed or out of range."
);

fn scenario_err(e: ScenarioError) -> PyErr {
    ScenarioError_::new_err((e.to_string(), e.field, e.message))
}

/// A scenario read straight from Python objects (dicts, lists, numbers,
/// strings): no text in between, so numbers arrive exactly and an error
/// names its field by its full path.
fn scenario_from_py(data: &Bound<'_, PyAny>) -> PyResult<Scenario> {
    let mut de = pythonize::Depythonizer::from_object(data);
    from_deserializer(&mut de).map_err(scenario_err)
}

/// Parses and validates a scenario (a dict), its time axis first scaled by
/// `time_scale` if given (a study's quick mode, see
/// `tcpeval_sim::time_scale`); returns it normalized, with every default
/// filled in, as JSON text (exact: Python reads the shortest round-tripping
/// form of every float back to the same value).
#[pyfunction]
#[pyo3(signature = (data, time_scale=None))]
fn validate(data: &Bound<'_, PyAny>, time_scale: Option<f64>) -> PyResult<String> {
    let mut sc = scenario_from_py(data)?;
    if let Some(factor) = time_scale {
        sc = tcpeval_sim::time_scale::time_scaled(sc, factor).map_err(scenario_err)?;
    }
    Resolved::new(&sc).map_err(scenario_err)?;
    serde_json::to_string(&sc).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// How the engine was compiled: `plain`, `profile-guided` or
/// `instrumented` (see `build.rs`).
#[pyfunction]
fn engine_build() -> &'static str {
    env!("TCPEVAL_ENGINE_BUILD")
}

/// The 1-based line of the TOML text where the field at `path`
/// (`topology.bottleneck.delay_ms`, `flows[1].params`) is written, or of its
/// nearest written ancestor; `None` when not even the first part is written
/// there (a default, or a field set outside the file).
#[pyfunction]
fn toml_line(text: &str, path: &str) -> Option<usize> {
    tcpeval_sim::toml_position::line_of(text, path)
}

/// The platform presets as JSON text: name, summary, settings (key, value,
/// source).
#[pyfunction]
fn platforms() -> String {
    use tcpeval_sim::platform::Platform;
    let list: Vec<serde_json::Value> = Platform::ALL
        .iter()
        .map(|p| {
            let settings: Vec<serde_json::Value> = p
                .settings()
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "key": s.key,
                        "value": Platform::shown_value(s),
                        "source": s.source,
                    })
                })
                .collect();
            serde_json::json!({ "name": p.name(), "summary": p.summary(), "settings": settings })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The TCP options as JSON text: name, type, unit, default, range
/// (`[lo, hi]` or null), doc, source; declared once in `tcp::config`.
#[pyfunction]
fn tcp_options() -> String {
    use tcpeval_sim::tcp::config::{option_defaults, OPTIONS};
    let defaults = option_defaults();
    let list: Vec<serde_json::Value> = OPTIONS
        .iter()
        .map(|o| {
            serde_json::json!({
                "name": o.name,
                "type": o.kind,
                "unit": o.unit,
                "default": defaults[o.name],
                "range": o.range.map(|(lo, hi)| [lo, hi]),
                "doc": o.doc.trim(),
                "source": o.source,
            })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The queue disciplines as JSON text: kind, summary, and each parameter's
/// name, unit, default, range (`[lo, hi]` or null), doc and source;
/// declared once in `tcpeval_sim::net::queue`.
#[pyfunction]
fn queues() -> String {
    use tcpeval_sim::net::queue::{QueueSpec, DISCIPLINES};
    let list: Vec<serde_json::Value> = DISCIPLINES
        .iter()
        .map(|d| {
            let defaults = QueueSpec::defaults(d.kind).expect("a listed discipline");
            let params: Vec<serde_json::Value> = d
                .params
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "name": p.name,
                        "unit": p.unit,
                        "default": defaults[p.name],
                        "range": p.range.map(|(lo, hi)| [lo, hi]),
                        "doc": p.doc,
                        "source": p.source,
                    })
                })
                .collect();
            serde_json::json!({ "name": d.kind, "summary": d.summary, "params": params })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The result tables as JSON text: key, doc, and each column's name, type
/// and doc (meaning and unit); declared once in `tcpeval_sim::columns`.
#[pyfunction]
fn columns() -> String {
    let list: Vec<serde_json::Value> = tcpeval_sim::columns::schema()
        .iter()
        .map(|t| {
            let cols: Vec<serde_json::Value> = t
                .columns
                .iter()
                .map(|c| serde_json::json!({"name": c.name, "type": c.dtype, "doc": c.doc.trim()}))
                .collect();
            serde_json::json!({"key": t.key, "doc": t.doc.trim(), "columns": cols})
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The algorithm catalog as JSON text: name, summary, defaults, and per
/// parameter its name, type, default, range, unit, doc and source (declared
/// once in each algorithm's `params!`).
#[pyfunction]
fn algorithms() -> String {
    let list: Vec<serde_json::Value> = tcpeval_cc::catalog()
        .into_iter()
        .map(|a| {
            let params: Vec<serde_json::Value> = a.params.iter().map(param_json).collect();
            serde_json::json!({
                "name": a.name,
                "summary": a.summary,
                "defaults": a.defaults,
                "params": params,
            })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// One parameter's listing; `range` is `{kind, lo, hi, text}` with `lo` and
/// `hi` the declared bound expressions (`null` for a custom or no check)
/// and `text` the whole range in words or interval notation.
fn param_json(d: &tcpeval_cc::ParamDoc) -> serde_json::Value {
    let (lo, hi) = d.range.bounds().unzip();
    serde_json::json!({
        "name": d.name,
        "type": d.ty,
        "default": d.default,
        "range": {"kind": d.range.kind(), "lo": lo, "hi": hi, "text": d.range.to_string()},
        "unit": d.unit,
        "doc": d.doc.split_whitespace().collect::<Vec<_>>().join(" "),
        "source": d.source,
    })
}

/// One simulation, advanced in steps so Python can show progress.
#[pyclass(module = "tcpeval._core")]
struct Simulation {
    world: Option<World>,
}

impl Simulation {
    fn world(&self) -> PyResult<&World> {
        self.world.as_ref().ok_or_else(finished)
    }

    fn world_mut(&mut self) -> PyResult<&mut World> {
        self.world.as_mut().ok_or_else(finished)
    }
}

/// The error for a call on a simulation that `finish` ended.
fn finished() -> PyErr {
    PyRuntimeError::new_err("simulation already finished")
}

#[pymethods]
impl Simulation {
    /// Builds the simulation from scenario data (a dict, normally a
    /// validated scenario's normalized form).
    #[new]
    fn new(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let sc = scenario_from_py(data)?;
        let world = World::new(&sc).map_err(scenario_err)?;
        Ok(Simulation { world: Some(world) })
    }

    /// Runs every event up to `until_s` seconds (without the GIL).
    fn advance(&mut self, py: Python<'_>, until_s: f64) -> PyResult<()> {
        let world = self.world_mut()?;
        let until = Time::from_secs_f64(until_s);
        py.allow_threads(|| world.advance(until));
        Ok(())
    }

    /// Plans snapshots at `times_s` (seconds), before the first `advance`:
    /// senders and links that run ahead of the clock stop there, so that `snapshot`
    /// at those times gives the results of a run that long (see the
    /// engine's `World::plan_snapshots`).
    fn plan_snapshots(&mut self, times_s: Vec<f64>) -> PyResult<()> {
        let world = self.world_mut()?;
        if world.events_processed() > 0 {
            return Err(PyRuntimeError::new_err(
                "plan_snapshots comes before the first advance",
            ));
        }
        for (i, &t) in times_s.iter().enumerate() {
            if !(t.is_finite() && t >= 0.0) {
                return Err(PyValueError::new_err(format!(
                    "times_s[{i}] = {t}: a snapshot time is a finite number of seconds >= 0"
                )));
            }
        }
        let cuts: Vec<Time> = times_s.iter().map(|&t| Time::from_secs_f64(t)).collect();
        world.plan_snapshots(&cuts);
        Ok(())
    }

    /// True if the results can be read now (`finish`, `snapshot`): at the
    /// end, at a planned snapshot, or wherever no sender or link ran ahead.
    #[getter]
    fn can_report_now(&self) -> PyResult<bool> {
        Ok(self.world()?.can_report_now())
    }

    /// Current simulated time, s.
    #[getter]
    fn now(&self) -> PyResult<f64> {
        Ok(self.world()?.now().secs())
    }

    /// End of the run, s.
    #[getter]
    fn end(&self) -> PyResult<f64> {
        Ok(self.world()?.end().secs())
    }

    /// Events processed so far.
    #[getter]
    fn events(&self) -> PyResult<u64> {
        Ok(self.world()?.events_processed())
    }

    /// Random numbers drawn so far (building the world included): 0 at
    /// the end means the run's results are the same for every seed.
    #[getter]
    fn random_draws(&self) -> PyResult<u64> {
        Ok(self.world()?.random_draws())
    }

    /// The results as they stand (the dict `finish` would give), the run
    /// left to go on unchanged: at time `D`, exactly a run of the same
    /// scenario with `duration_s = D`; None when a traffic generator's
    /// event fell at exactly `D`, which that run would not have had, or
    /// when `D` was not planned and a sender or link ran ahead of it (see
    /// `World::snapshot`).
    fn snapshot<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let world = self.world_mut()?;
        match py.allow_threads(|| world.snapshot()) {
            Some(r) => results_to_py(py, r).map(Some),
            None => Ok(None),
        }
    }

    /// Ends the run where it stands and returns its results as a dict of
    /// numpy columns and lists of per-flow / per-link dicts.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if !self.world()?.can_report_now() {
            return Err(PyRuntimeError::new_err(format!(
                "cannot report at {} s: a run stopped before its end reports at a time \
                 planned with plan_snapshots",
                self.world()?.now().secs()
            )));
        }
        let world = self.world.take().ok_or_else(finished)?;
        let r = py.allow_threads(|| world.finish());
        results_to_py(py, r)
    }
}

/// A series table as a dict of numpy arrays, one per declared column.
fn table_to_py<T: Table>(py: Python<'_>, table: T) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, column) in table.into_columns() {
        match column {
            ColumnData::F64(v) => d.set_item(name, v.into_pyarray(py))?,
            ColumnData::U32(v) => d.set_item(name, v.into_pyarray(py))?,
            ColumnData::U64(v) => d.set_item(name, v.into_pyarray(py))?,
            ColumnData::I64(v) => d.set_item(name, v.into_pyarray(py))?,
        }
    }
    Ok(d)
}

/// Summary records as a list of dicts, one key per declared column.
fn rows_to_py<'py, R: Record>(py: Python<'py>, records: &[R]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for record in records {
        let d = PyDict::new(py);
        for (name, cell) in record.row() {
            match cell {
                Cell::Str(v) => d.set_item(name, v)?,
                Cell::Bool(v) => d.set_item(name, v)?,
                Cell::U64(v) => d.set_item(name, v)?,
                Cell::F64(v) => d.set_item(name, v)?,
                Cell::OptU64(v) => d.set_item(name, v)?,
                Cell::OptF64(v) => d.set_item(name, v)?,
            }
        }
        list.append(d)?;
    }
    Ok(list)
}

/// The results as Python objects: every column and row key comes from the
/// declarations in `tcpeval_sim::probe` and `tcpeval_sim::results`.
fn results_to_py(py: Python<'_>, r: Results) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("sim_time_s", r.sim_time_s)?;
    out.set_item("events", r.events)?;
    out.set_item("random_draws", r.random_draws)?;
    out.set_item(FlowSeries::KEY, table_to_py(py, r.flow_series)?)?;
    out.set_item(QueueSeries::KEY, table_to_py(py, r.queue_series)?)?;
    out.set_item(AqmSeries::KEY, table_to_py(py, r.aqm_series)?)?;
    out.set_item(ClassSeries::KEY, table_to_py(py, r.class_series)?)?;
    out.set_item(Transfers::KEY, table_to_py(py, r.transfers)?)?;
    out.set_item(ClassSummary::KEY, rows_to_py(py, &r.classes)?)?;
    out.set_item(FlowSummary::KEY, rows_to_py(py, &r.flows)?)?;
    out.set_item(LinkSummary::KEY, rows_to_py(py, &r.links)?)?;
    Ok(out)
}

/// The compiled core of tcpeval.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(engine_build, m)?)?;
    m.add_function(wrap_pyfunction!(toml_line, m)?)?;
    m.add_function(wrap_pyfunction!(columns, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(platforms, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_options, m)?)?;
    m.add_function(wrap_pyfunction!(queues, m)?)?;
    m.add_class::<Simulation>()?;
    #[cfg(target_os = "linux")]
    {
        m.add_class::<testbed::TestbedRun>()?;
        m.add_function(wrap_pyfunction!(testbed::testbed_set_offloads, m)?)?;
    }
    m.add("ScenarioError", m.py().get_type::<ScenarioError_>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
