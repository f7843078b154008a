//! Turning a NIC's offloads off with the legacy ethtool ioctls
//! (`SIOCETHTOOL`, `struct ethtool_value`; include/uapi/linux/ethtool.h),
//! so the testbed needs no `ethtool` binary.
//!
//! Why: with TSO/GSO a veth carries super-packets of up to 64 KB that the
//! bottleneck qdisc would count and queue as one packet, and with transmit
//! checksum offload a frame copied across the delay line by an AF_PACKET
//! socket would arrive with a partial (wrong) checksum. Segmentation and
//! checksums are then done in software by the sending stack, one MSS per
//! frame, as on the simulator's links.
//!
//! GRO is the exception that may be asked for ([`set`] with `gro`): a veth
//! runs its receive side through NAPI (and so can hand it to a NAPI
//! thread) only while GRO is on. The caller then keeps GRO from merging
//! anything with `gro_max_size 0` (rtnetlink), so frames stay one MSS.

use std::os::fd::AsRawFd;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::sys;

/// `SIOCETHTOOL` (include/uapi/linux/sockios.h).
const SIOCETHTOOL: libc::c_ulong = 0x8946;

/// One offload: its name as `ethtool -k` shows it and its get/set commands
/// (include/uapi/linux/ethtool.h).
struct Feature {
    name: &'static str,
    get: u32,
    set: u32,
}

/// Turned off in this order (TSO and GSO before scatter-gather and
/// checksumming, which they depend on).
const FEATURES: [Feature; 5] = [
    Feature {
        name: "tcp-segmentation-offload",
        get: 0x1e,
        set: 0x1f,
    },
    Feature {
        name: "generic-segmentation-offload",
        get: 0x23,
        set: 0x24,
    },
    Feature {
        name: "generic-receive-offload",
        get: 0x2b,
        set: 0x2c,
    },
    Feature {
        name: "scatter-gather",
        get: 0x18,
        set: 0x19,
    },
    Feature {
        name: "tx-checksumming",
        get: 0x16,
        set: 0x17,
    },
];

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
struct IfreqData {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

/// `generic-receive-offload`'s place in [`FEATURES`].
const GRO: usize = 2;

/// One offload's state after [`set`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OffloadState {
    /// Interface.
    pub ifname: String,
    /// Feature name (`ethtool -k`).
    pub feature: &'static str,
    /// On after the attempt to set it.
    pub on: bool,
    /// What it was set to.
    pub wanted: bool,
}

fn ioctl(fd: i32, ifname: &str, cmd: u32, data: u32) -> std::result::Result<u32, std::io::Error> {
    let mut v = EthtoolValue { cmd, data };
    let mut req = IfreqData {
        name: [0; libc::IFNAMSIZ],
        data: &mut v as *mut _ as *mut libc::c_void,
        _pad: [0; 16],
    };
    for (d, s) in req
        .name
        .iter_mut()
        .zip(ifname.bytes().take(libc::IFNAMSIZ - 1))
    {
        *d = s as libc::c_char;
    }
    // SAFETY: req is a valid ifreq whose data points to a live ethtool_value.
    if unsafe { libc::ioctl(fd, SIOCETHTOOL as _, &mut req) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(v.data)
}

/// Turns every offload of [`FEATURES`] off on `ifname` (in the calling
/// thread's namespace), except GRO, which is turned on if `gro`, and
/// reports what each is afterwards. An offload the driver cannot change is
/// reported as it is (`on != wanted`), not an error.
pub fn set(ifname: &str, gro: bool) -> Result<Vec<OffloadState>> {
    if ifname.len() >= libc::IFNAMSIZ {
        return Err(Error(format!(
            "interface name {ifname:?} is longer than {} bytes",
            libc::IFNAMSIZ - 1
        )));
    }
    let sock = sys::socket(libc::AF_INET, libc::SOCK_DGRAM, 0, "ethtool ioctls")?;
    let fd = sock.as_raw_fd();
    let mut out = Vec::new();
    for (k, f) in FEATURES.iter().enumerate() {
        let wanted = k == GRO && gro;
        let _ = ioctl(fd, ifname, f.set, u32::from(wanted));
        let on = ioctl(fd, ifname, f.get, 0)
            .map_err(|e| Error(format!("{ifname}: reading {}: {e}", f.name)))?;
        out.push(OffloadState {
            ifname: ifname.to_owned(),
            feature: f.name,
            on: on != 0,
            wanted,
        });
    }
    Ok(out)
}
