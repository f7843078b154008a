//! Thin PyO3 layer: scenario JSON in, numpy columns out. No logic of its own:
//! validation and simulation live in `tcpeval-sim`, algorithms in
//! `tcpeval-cc`. The GIL is released while the engine runs, so a thread pool
//! can run several simulations at once.

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tcpeval_sim::resolve::Resolved;
use tcpeval_sim::results::Results;
use tcpeval_sim::{from_json, ScenarioError, Time, World};

create_exception!(
    _core,
    ScenarioError_,
    PyValueError,
    "A scenario field is missing, malformed or out of range."
);

fn scenario_err(e: ScenarioError) -> PyErr {
    ScenarioError_::new_err((e.to_string(), e.field, e.message))
}

/// Parses and validates a scenario (JSON text); returns it normalized, with
/// every default filled in, as JSON text.
#[pyfunction]
fn validate(json: &str) -> PyResult<String> {
    let sc = from_json(json).map_err(scenario_err)?;
    Resolved::new(&sc).map_err(scenario_err)?;
    serde_json::to_string(&sc).map_err(|e| PyRuntimeError::new_err(e.to_string()))
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

/// The algorithm catalog as JSON text: name, summary, defaults, docs.
#[pyfunction]
fn algorithms() -> String {
    let list: Vec<serde_json::Value> = tcpeval_cc::catalog()
        .into_iter()
        .map(|a| {
            let docs: serde_json::Map<String, serde_json::Value> =
                a.docs.iter().map(|d| (d.name.to_string(), serde_json::Value::from(d.doc))).collect();
            serde_json::json!({"name": a.name, "summary": a.summary, "defaults": a.defaults, "docs": docs})
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// One simulation, advanced in steps so Python can show progress.
#[pyclass(module = "tcpeval._core")]
struct Simulation {
    world: Option<World>,
}

impl Simulation {
    fn world(&self) -> PyResult<&World> {
        self.world
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))
    }
}

#[pymethods]
impl Simulation {
    /// Builds the simulation from scenario JSON text.
    #[new]
    fn new(json: &str) -> PyResult<Self> {
        let sc = from_json(json).map_err(scenario_err)?;
        let world = World::new(&sc).map_err(scenario_err)?;
        Ok(Simulation { world: Some(world) })
    }

    /// Runs every event up to `until_s` seconds (without the GIL).
    fn advance(&mut self, py: Python<'_>, until_s: f64) -> PyResult<()> {
        let world = self
            .world
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        let until = Time::from_secs_f64(until_s);
        py.allow_threads(|| world.advance(until));
        Ok(())
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

    /// Ends the run where it stands and returns its results as a dict of
    /// numpy columns and lists of per-flow / per-link dicts.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let world = self
            .world
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("simulation already finished"))?;
        let r = py.allow_threads(|| world.finish());
        results_to_py(py, r)
    }
}

fn results_to_py(py: Python<'_>, r: Results) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("sim_time_s", r.sim_time_s)?;
    out.set_item("events", r.events)?;
    let fs = PyDict::new(py);
    let s = r.flow_series;
    fs.set_item("time", s.time.into_pyarray(py))?;
    fs.set_item("flow", s.flow.into_pyarray(py))?;
    fs.set_item("cwnd", s.cwnd.into_pyarray(py))?;
    fs.set_item("ssthresh", s.ssthresh.into_pyarray(py))?;
    fs.set_item("srtt", s.srtt.into_pyarray(py))?;
    fs.set_item("delivered", s.delivered.into_pyarray(py))?;
    fs.set_item("sent", s.sent.into_pyarray(py))?;
    fs.set_item("retransmitted", s.retransmitted.into_pyarray(py))?;
    fs.set_item("timeouts", s.timeouts.into_pyarray(py))?;
    out.set_item("flow_series", fs)?;
    let qs = PyDict::new(py);
    let q = r.queue_series;
    qs.set_item("time", q.time.into_pyarray(py))?;
    qs.set_item("link", q.link.into_pyarray(py))?;
    qs.set_item("qlen", q.qlen.into_pyarray(py))?;
    qs.set_item("qbytes", q.qbytes.into_pyarray(py))?;
    qs.set_item("departed_bytes", q.departed_bytes.into_pyarray(py))?;
    qs.set_item("drops", q.drops.into_pyarray(py))?;
    out.set_item("queue_series", qs)?;
    let cs = PyDict::new(py);
    let c = r.class_series;
    cs.set_item("time", c.time.into_pyarray(py))?;
    cs.set_item("class", c.class.into_pyarray(py))?;
    cs.set_item("delivered", c.delivered.into_pyarray(py))?;
    cs.set_item("offered", c.offered.into_pyarray(py))?;
    cs.set_item("sent", c.sent.into_pyarray(py))?;
    cs.set_item("active", c.active.into_pyarray(py))?;
    out.set_item("class_series", cs)?;
    let ts = PyDict::new(py);
    let t = r.transfers;
    ts.set_item("class", t.class.into_pyarray(py))?;
    ts.set_item("flow", t.flow.into_pyarray(py))?;
    ts.set_item("size_pkts", t.size_pkts.into_pyarray(py))?;
    ts.set_item("size_bytes", t.size_bytes.into_pyarray(py))?;
    ts.set_item("start", t.start.into_pyarray(py))?;
    ts.set_item("end", t.end.into_pyarray(py))?;
    ts.set_item("rtt", t.rtt.into_pyarray(py))?;
    out.set_item("transfers", ts)?;
    let classes = PyList::empty(py);
    for c in r.classes {
        let d = PyDict::new(py);
        let k = c.counters;
        d.set_item("name", c.info.name)?;
        d.set_item("kind", c.info.kind.name())?;
        d.set_item(
            "direction",
            match c.info.direction {
                tcpeval_sim::scenario::Direction::Forward => "forward",
                tcpeval_sim::scenario::Direction::Reverse => "reverse",
            },
        )?;
        d.set_item("target_bps", c.info.target_bps)?;
        d.set_item("offered_bytes", k.offered_bytes)?;
        d.set_item("sent", k.sent)?;
        d.set_item("sent_bytes", k.sent_bytes)?;
        d.set_item("received", k.received)?;
        d.set_item("dropped", k.dropped)?;
        d.set_item("in_transit", k.in_transit)?;
        d.set_item("delivered_bytes", k.delivered_bytes)?;
        d.set_item("started", k.started)?;
        d.set_item("completed", k.completed)?;
        classes.append(d)?;
    }
    out.set_item("classes", classes)?;
    let flows = PyList::empty(py);
    for f in r.flows {
        let d = PyDict::new(py);
        d.set_item("name", f.name)?;
        d.set_item("algorithm", f.algorithm)?;
        d.set_item("spec", f.spec)?;
        d.set_item("start", f.start_s)?;
        d.set_item("stop", f.stop_s)?;
        d.set_item("size_pkts", f.size_pkts)?;
        d.set_item("base_rtt", f.base_rtt_s)?;
        d.set_item("mss", f.mss)?;
        d.set_item("sent", f.sent)?;
        d.set_item("retransmitted", f.retransmitted)?;
        d.set_item("fast_retransmits", f.fast_retransmits)?;
        d.set_item("timeouts", f.timeouts)?;
        d.set_item("undos", f.undos)?;
        d.set_item("delivered_bytes", f.delivered_bytes)?;
        d.set_item("data_received", f.data_received)?;
        d.set_item("data_dropped", f.data_dropped)?;
        d.set_item("acks_dropped", f.acks_dropped)?;
        d.set_item("data_in_transit", f.data_in_transit)?;
        d.set_item("first_loss", f.first_loss_s)?;
        d.set_item("completed", f.completed_s)?;
        d.set_item("final_cwnd", f.final_cwnd)?;
        flows.append(d)?;
    }
    out.set_item("flows", flows)?;
    let links = PyList::empty(py);
    for l in r.links {
        let d = PyDict::new(py);
        d.set_item("name", l.name)?;
        d.set_item("rate_bps", l.rate_bps)?;
        d.set_item("delay", l.delay_s)?;
        d.set_item("buffer", l.buffer_pkts)?;
        d.set_item("buffer_bytes", l.buffer_bytes)?;
        d.set_item("monitored", l.monitored)?;
        d.set_item("arrivals", l.counters.arrivals)?;
        d.set_item("drops", l.counters.drops)?;
        d.set_item("random_drops", l.counters.random_drops)?;
        d.set_item("departures", l.counters.departures)?;
        d.set_item("bytes_departed", l.counters.bytes_departed)?;
        d.set_item("max_qlen", l.counters.max_qlen)?;
        links.append(d)?;
    }
    out.set_item("links", links)?;
    Ok(out)
}

/// The compiled core of tcpeval.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(platforms, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_options, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError_>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
