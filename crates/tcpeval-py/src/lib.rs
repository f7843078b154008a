//! PyO3 bindings (under construction in this commit series).
