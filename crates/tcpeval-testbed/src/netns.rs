//! Entering a network namespace made by `ip netns add NAME`: `setns(2)` with
//! `CLONE_NEWNET` on `/run/netns/NAME`. Only the calling thread moves; a
//! socket keeps the namespace it was created in, so sockets made by a
//! thread inside a namespace can be used from any thread afterwards.

use std::os::fd::AsRawFd;

use crate::error::{Error, Result};

/// Directory where `ip netns` bind-mounts its namespaces (iproute2's `NETNS_RUN_DIR`).
pub const NETNS_RUN_DIR: &str = "/run/netns";

/// Moves the calling thread into network namespace `name`.
pub fn enter(name: &str) -> Result<()> {
    if name.is_empty() || name.contains('/') {
        return Err(Error(format!(
            "network namespace name {name:?} is not a plain name"
        )));
    }
    let path = format!("{NETNS_RUN_DIR}/{name}");
    let file = std::fs::File::open(&path)
        .map_err(|e| Error(format!("network namespace {name}: cannot open {path}: {e}")))?;
    // SAFETY: a valid fd of a namespace file; setns only changes this thread's namespace.
    if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(Error::os(format!("setns into network namespace {name}")));
    }
    Ok(())
}

/// Runs `f` on a new thread inside namespace `ns` and returns its result
/// (for making sockets and looking up interfaces there).
pub fn run_in<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let ns = ns.to_owned();
    std::thread::Builder::new()
        .name(format!("netns-{ns}"))
        .spawn(move || {
            enter(&ns)?;
            f()
        })
        .map_err(|e| Error(format!("cannot start a thread: {e}")))?
        .join()
        .map_err(|_| Error("a thread inside a namespace panicked".into()))?
}

/// Index of interface `ifname` in the calling thread's namespace.
pub fn ifindex(ifname: &str) -> Result<u32> {
    let c = std::ffi::CString::new(ifname)
        .map_err(|_| Error(format!("bad interface name {ifname:?}")))?;
    // SAFETY: a valid NUL-terminated string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        return Err(Error::os(format!("interface {ifname}")));
    }
    Ok(i)
}
