//! Small safe wrappers of the socket calls the testbed makes.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use crate::error::{Error, Result};

/// `socket(2)`, owned.
pub fn socket(domain: i32, ty: i32, proto: i32, what: &str) -> Result<OwnedFd> {
    // SAFETY: plain syscall; the fd is owned on success.
    let fd = unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, proto) };
    if fd < 0 {
        return Err(Error::os(format!("socket for {what}")));
    }
    // SAFETY: fd is a fresh, valid descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `setsockopt(2)` with a plain value.
pub fn setsockopt<T>(fd: RawFd, level: i32, name: i32, value: &T, what: &str) -> Result<()> {
    // SAFETY: `value` points to size_of::<T>() readable bytes.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(Error::os(what));
    }
    Ok(())
}

/// `setsockopt(2)` with a byte string (`TCP_CONGESTION`).
pub fn setsockopt_bytes(fd: RawFd, level: i32, name: i32, value: &[u8], what: &str) -> Result<()> {
    // SAFETY: `value` is a readable slice of the given length.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value.as_ptr() as *const libc::c_void,
            value.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(Error::os(what));
    }
    Ok(())
}

/// A receive or send timeout (`SO_RCVTIMEO`, `SO_SNDTIMEO`) of `ms` milliseconds.
pub fn set_timeout(fd: RawFd, name: i32, ms: u64, what: &str) -> Result<()> {
    let tv = libc::timeval {
        tv_sec: (ms / 1000) as libc::time_t,
        tv_usec: ((ms % 1000) * 1000) as libc::suseconds_t,
    };
    setsockopt(fd, libc::SOL_SOCKET, name, &tv, what)
}

/// An IPv4 socket address.
pub fn sockaddr_in(addr: std::net::Ipv4Addr, port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(addr).to_be(),
        },
        sin_zero: [0; 8],
    }
}

/// Which call gives a socket its IPv4 address.
#[derive(Clone, Copy, Debug)]
pub enum Attach {
    /// `bind(2)`: the local address.
    Bind,
    /// `connect(2)`: the peer's address.
    Connect,
}

/// Binds or connects socket `fd` to `addr:port`; false if the call failed
/// (the OS error is left in errno for the caller's message).
pub fn attach_v4(fd: libc::c_int, how: Attach, addr: std::net::Ipv4Addr, port: u16) -> bool {
    let sa = sockaddr_in(addr, port);
    let (ptr, len) = (
        &sa as *const libc::sockaddr_in as *const libc::sockaddr,
        std::mem::size_of_val(&sa) as libc::socklen_t,
    );
    // SAFETY: sa is a valid sockaddr_in of `len` bytes that outlives the call.
    let r = unsafe {
        match how {
            Attach::Bind => libc::bind(fd, ptr, len),
            Attach::Connect => libc::connect(fd, ptr, len),
        }
    };
    r == 0
}

/// True if the last OS error is "try again" (a timeout or non-blocking call).
pub fn would_block() -> bool {
    let e = std::io::Error::last_os_error().raw_os_error();
    e == Some(libc::EAGAIN) || e == Some(libc::EWOULDBLOCK) || e == Some(libc::EINTR)
}
