//! Simulated time (integer picoseconds, from `tcpeval-cc`) and rate arithmetic.

pub use tcpeval_cc::Time;

/// Serialization time of `bytes` on a link of `rate_bps` bit/s, rounded up to
/// the next picosecond so a link never exceeds its rate.
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    let ps = (f64::from(bytes) * 8.0e12 / rate_bps).ceil();
    Time::from_ps(ps as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_times_are_exact() {
        assert_eq!(tx_time(1500, 1e9), Time::from_us(12));
        assert_eq!(tx_time(1500, 500e6), Time::from_us(24));
        assert_eq!(tx_time(40, 1e9), Time::from_ns(320));
        assert_eq!(tx_time(1000, 1e9), Time::from_us(8));
        // 1500 B at 3 Mbit/s = 4 ms exactly; 1 B at 3 bit/s rounds up.
        assert_eq!(tx_time(1500, 3e6), Time::from_ms(4));
        assert_eq!(tx_time(1, 3.0), Time::from_ps(2_666_666_666_667));
    }
}
