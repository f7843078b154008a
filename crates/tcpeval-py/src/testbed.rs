//! The testbed's real-time part (crate `tcpeval-testbed`), for
//! `python/tcpeval/testbed/`: a run started in Rust threads, waited for in
//! short steps with the GIL released (so Ctrl-C reaches Python between
//! steps), and the offload switch. JSON in, JSON out.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use tcpeval_testbed::config::RunConfig;
use tcpeval_testbed::run::{self, Handle};
use tcpeval_testbed::{netns, offload};

fn runtime(e: tcpeval_testbed::Error) -> PyErr {
    PyRuntimeError::new_err(e.0)
}

/// A testbed run in progress (see `tcpeval_testbed::run`).
#[pyclass(module = "tcpeval._core")]
pub struct TestbedRun {
    handle: Option<Handle>,
}

#[pymethods]
impl TestbedRun {
    /// Checks the run's JSON config, opens its sockets and starts it.
    #[new]
    fn new(py: Python<'_>, config_json: &str) -> PyResult<Self> {
        let cfg = RunConfig::from_json(config_json).map_err(|e| PyValueError::new_err(e.0))?;
        let handle = py.allow_threads(|| run::start(cfg)).map_err(runtime)?;
        Ok(TestbedRun {
            handle: Some(handle),
        })
    }

    /// Waits up to `timeout_s` for the end; true once ended.
    fn wait(&self, py: Python<'_>, timeout_s: f64) -> bool {
        let Some(h) = &self.handle else { return true };
        let until = std::time::Instant::now()
            + std::time::Duration::from_secs_f64(timeout_s.clamp(0.0, 3600.0));
        py.allow_threads(|| {
            while !h.is_finished() && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            h.is_finished()
        })
    }

    /// Asks the run to end now.
    fn stop(&self) {
        if let Some(h) = &self.handle {
            h.stop();
        }
    }

    /// Waits for the end; the results as JSON text.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        let h = self
            .handle
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the run was already finished"))?;
        let r = py.allow_threads(|| h.join()).map_err(runtime)?;
        serde_json::to_string(&r).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

/// Turns the offloads of `ifnames` in namespace `netns` off (GRO on
/// instead if `gro`); JSON list of (ifname, feature, on, wanted) after the
/// attempt.
#[pyfunction]
#[pyo3(signature = (netns_name, ifnames, gro = false))]
pub fn testbed_set_offloads(
    py: Python<'_>,
    netns_name: &str,
    ifnames: Vec<String>,
    gro: bool,
) -> PyResult<String> {
    let ns = netns_name.to_owned();
    let states = py
        .allow_threads(|| {
            netns::run_in(&ns, move || {
                let mut all = Vec::new();
                for i in &ifnames {
                    all.extend(offload::set(i, gro)?);
                }
                Ok(all)
            })
        })
        .map_err(runtime)?;
    serde_json::to_string(&states).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}
