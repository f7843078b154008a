//! One error type: a sentence saying what failed and where (namespace,
//! interface, flow), with the OS error when there is one.

use std::fmt;

/// What went wrong, in words for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// `what` failed with the calling thread's last OS error (`errno`).
    pub fn os(what: impl fmt::Display) -> Self {
        Error(format!("{what}: {}", std::io::Error::last_os_error()))
    }
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
