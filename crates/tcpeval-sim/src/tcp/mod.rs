//! TCP endpoints at packet granularity: the sender (window, loss recovery,
//! RTO, undo of spurious reductions) with its SACK scoreboard, and the receiver (cumulative ACK, SACK
//! blocks, delayed ACK). Sequence numbers count packets, not bytes.

pub mod config;
pub mod connection;
pub mod declare;
pub mod pacing;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod scoreboard;
pub mod sender;
pub mod timer;
pub mod undo;

pub use config::{CountMode, LossMarking, RecoveryMode, RtoMode, TcpConfig, TcpOptions};
pub use connection::Connection;
pub use receiver::Receiver;
pub use sender::{Sender, SenderStats};
