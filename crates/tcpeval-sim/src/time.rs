//! Simulated time (integer picoseconds, from `tcpeval-cc`) and rate arithmetic.

pub use tcpeval_cc::Time;

/// Serialization time of `bytes` on a link of `rate_bps` bit/s, rounded up to
/// the next picosecond so a link never exceeds its rate.
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    let ps = (f64::from(bytes) * 8.0e12 / rate_bps).ceil();
    Time::from_ps(ps as u64)
}

/// [`tx_time`] remembered for the last two (size, rate) pairs a link met.
///
/// A link carries one or two packet sizes (data segments, ACKs), so nearly
/// every lookup hits and the division and rounding are done once per size
/// rather than once per packet. A hit returns the value `tx_time` computes,
/// to the picosecond.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxTimeMemo {
    /// `(bytes, rate bit/s, tx_time(bytes, rate))`, most recently added first;
    /// a zero rate marks an empty slot (no link has rate 0).
    slots: [(u32, f64, Time); 2],
}

impl TxTimeMemo {
    /// `tx_time(bytes, rate_bps)`.
    #[inline]
    pub fn get(&mut self, bytes: u32, rate_bps: f64) -> Time {
        for &(b, r, t) in &self.slots {
            if b == bytes && r == rate_bps {
                return t;
            }
        }
        let t = tx_time(bytes, rate_bps);
        self.slots[1] = self.slots[0];
        self.slots[0] = (bytes, rate_bps, t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_returns_what_tx_time_computes() {
        let mut m = TxTimeMemo::default();
        // Data, ACK, then a third size and a rate change evict the oldest.
        for (bytes, rate) in [
            (1500, 1e9),
            (40, 1e9),
            (1500, 1e9),
            (40, 1e9),
            (576, 1e9),
            (1500, 1e9),
            (1500, 3e6),
            (1, 3.0),
            (1500, 3e6),
        ] {
            assert_eq!(
                m.get(bytes, rate),
                tx_time(bytes, rate),
                "{bytes} B at {rate}"
            );
        }
    }

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
