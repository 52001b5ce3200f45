//! State `LOOKUP`: the associative lookups of the latched message (`docs/blocks/cpu.md` §Messages, §6).
//! Side by side with `rtl/cpu_lookup.vh` (§LOOKUP of `rtl/cpu.v`, which includes it).

use super::*;

/// Results of the associative lookups (registered in state `LOOKUP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Lookup {
    pub(super) s_hit: bool,
    pub(super) s_idx: usize,
    pub(super) d_hit: bool,
    pub(super) d_idx: usize,
    pub(super) f_hit: bool,
    pub(super) f_idx: usize,
    pub(super) p_hit: bool,
    pub(super) p_idx: usize,
    /// The requester is the device of entry `p_idx` (000 [0094], [0169]): always so for a reverse lookup;
    /// for a given P_ID, the entry is valid and holds `m.src[15:0]` (`docs/blocks/cpu.md` §Messages).
    pub(super) p_sender: bool,
}

impl Cpu {
    pub(super) fn lookup(&self) -> Lookup {
        let m = &self.msg;
        let portals = m.family == Family::Portals;
        let skey = if portals { m.ctx & 0x1fff } else { m.ctx & 0xfff };
        let dkey = if portals { m.ctx } else { m.ctx & 0xfff };
        let s = self.st.iter().position(|e| e.valid && e.portals == portals && e.key == skey);
        let d = self.d.iter().position(|e| e.valid && e.portals == portals && e.key == dkey);
        let f = self.d.iter().position(|e| !e.valid);
        // A TLP INITIALIZATION's P_ID is the device ID of the engine it is for (a relay, docs/blocks/cpu.md
        // §Messages): the reverse lookup finds that engine's PBV-table entry. Other messages: P_ID is an index.
        let init = !portals && m.kind == Kind::INITIALIZATION;
        let p = if m.pid != NO_PARTICIPANT && !init {
            (usize::from(m.pid) < PBV_ENTRIES).then_some(usize::from(m.pid) % PBV_ENTRIES)
        } else {
            let who = if init { m.pid } else { m.src as u16 };
            self.cfg.pbv.iter().position(|e| e.valid && e.device_id == who)
        };
        let p_sender = p.is_some_and(|i| self.cfg.pbv[i].valid && self.cfg.pbv[i].device_id == m.src as u16);
        Lookup {
            s_hit: s.is_some(),
            s_idx: s.unwrap_or(0),
            d_hit: d.is_some(),
            d_idx: d.unwrap_or(0),
            f_hit: f.is_some(),
            f_idx: f.unwrap_or(0),
            p_hit: p.is_some(),
            p_idx: p.unwrap_or(0),
            p_sender,
        }
    }

}
