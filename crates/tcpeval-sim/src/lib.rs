//! The tcpeval simulation engine (under construction in this commit series).
