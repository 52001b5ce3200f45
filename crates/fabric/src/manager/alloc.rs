//! Per-engine bookkeeping (`docs/manager.md` §6): static-entry slots, the shared PBV
//! table with reference counts, and the context keys (CC_ID / multicast tree) in use, so that jobs can
//! overlap nodes and switches without two contexts colliding (seed 001: a group ID in every message;
//! 000 \[0128\]: many simultaneous contexts per engine).

use std::collections::BTreeSet;

use super::topology::{DeviceId, EngineCapacity};

/// Number of TLP context keys: CC_ID is 12 bits (000 \[0168\]).
pub const CC_ID_KEYS: u32 = 1 << inswitch_frames::collective::CC_ID_BITS;
/// Number of Portals context keys: the multicast tree is DFA bits 15-3, 13 bits (002 (61)).
pub const TREE_KEYS: u32 = 1 << 13;

/// One engine's allocations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineBook {
    /// Static-entry slots in use.
    pub static_slots: BTreeSet<u16>,
    /// PBV table: entry → (device ID, contexts using it).
    pub pbv: Vec<Option<(DeviceId, u32)>>,
    /// Context keys in use on this engine.
    pub keys: BTreeSet<u16>,
    /// `VNI_ALLOWED` table (Portals, 002 (52)): entry → (VNI, trees using it).
    pub vnis: Vec<Option<(u16, u32)>>,
}

impl EngineBook {
    /// PBV indices for `devices` (in order): an entry that already holds the device is shared, others
    /// take the lowest free entries. Returns (index, newly written) per device, or `None` if the table
    /// is full. Nothing is changed.
    pub fn pbv_plan(&self, cap: &EngineCapacity, devices: &[DeviceId]) -> Option<Vec<(u8, bool)>> {
        let n = cap.pbv_entries.min(256);
        let mut table = self.pbv.clone();
        table.resize(n.max(table.len()), None);
        let mut out = Vec::with_capacity(devices.len());
        for &d in devices {
            if let Some(i) = table.iter().position(|e| e.is_some_and(|(x, _)| x == d)) {
                out.push((i as u8, false));
            } else {
                let i = table.iter().take(n).position(|e| e.is_none())?;
                table[i] = Some((d, 0));
                out.push((i as u8, true));
            }
        }
        Some(out)
    }

    /// Takes a reference on PBV entry `i` for `device`.
    pub fn pbv_take(&mut self, i: u8, device: DeviceId) {
        take(&mut self.pbv, i, device);
    }

    /// Drops a reference on PBV entry `i`; true if the entry became free.
    pub fn pbv_release(&mut self, i: u8) -> bool {
        release(&mut self.pbv, i)
    }

    /// The `VNI_ALLOWED` entry for `vni` among the first `n`: the one that holds it already (shared),
    /// else the lowest free one; (index, newly written), or `None` if the table is full. Nothing is
    /// changed.
    pub fn vni_plan(&self, vni: u16, n: usize) -> Option<(u8, bool)> {
        if let Some(i) = self.vnis.iter().position(|e| e.is_some_and(|(v, _)| v == vni)) {
            return Some((i as u8, false));
        }
        let i = (0..n.min(256)).find(|&i| self.vnis.get(i).is_none_or(|e| e.is_none()))?;
        Some((i as u8, true))
    }

    /// Takes a reference on `VNI_ALLOWED` entry `i` for `vni`.
    pub fn vni_take(&mut self, i: u8, vni: u16) {
        take(&mut self.vnis, i, vni);
    }

    /// Drops a reference on `VNI_ALLOWED` entry `i`; true if the entry became free.
    pub fn vni_release(&mut self, i: u8) -> bool {
        release(&mut self.vnis, i)
    }

    /// PBV entries in use.
    pub fn pbv_used(&self) -> usize {
        self.pbv.iter().filter(|e| e.is_some()).count()
    }
}

/// Takes a reference on entry `i` of a reference-counted table (the PBV and `VNI_ALLOWED` tables), which
/// then holds `value`.
fn take<T: Copy>(table: &mut Vec<Option<(T, u32)>>, i: u8, value: T) {
    let i = usize::from(i);
    if table.len() <= i {
        table.resize(i + 1, None);
    }
    let e = &mut table[i];
    *e = Some((value, e.map_or(0, |(_, r)| r) + 1));
}

/// Drops a reference on entry `i` of a reference-counted table; true if the entry became free.
fn release<T>(table: &mut [Option<(T, u32)>], i: u8) -> bool {
    let Some(e) = table.get_mut(usize::from(i)) else { return false };
    match e {
        Some((_, r)) if *r > 1 => {
            *r -= 1;
            false
        }
        Some(_) => {
            *e = None;
            true
        }
        None => false,
    }
}

/// 2-bit transaction ID of seed 001: compared modulo 4, incremented when a round exits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tid(pub u8);

impl Tid {
    /// Modulus of the TID (2 bits).
    pub const MODULUS: u8 = 4;

    /// The next TID (after a round's Exiting → Idle).
    pub fn next(self) -> Tid {
        Tid((self.0 + 1) % Self::MODULUS)
    }

    /// `self` is one transaction behind `other` (001: a child that missed an Exit; 0 is behind 1, 3 is
    /// behind 0).
    pub fn is_behind(self, other: Tid) -> bool {
        self.next() == other
    }
}
