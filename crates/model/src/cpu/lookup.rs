//! State `LOOKUP`: the lookups of the latched message (`docs/blocks/cpu.md` §Messages, §6): the static
//! entry indexed directly by the key and checked against its tag, the descriptors searched.
//! Side by side with `rtl/cpu_lookup.vh` (§LOOKUP of `rtl/cpu.v`, which includes it).

use super::*;

impl Cpu {
    /// Whether the participant of `m` needs the reverse lookup of state `SCAN` (docs/blocks/cpu.md §PBV
    /// table): a TLP CONTRIBUTION or RESPONSE without a P_ID (the requester ID is searched), and a TLP
    /// INITIALIZATION with one (its P_ID, a device ID, is searched). No other message reads the
    /// participant, so no other spends the cycles. A configuration message reaches the CPU only when it
    /// names another engine (the checker applies the others), and is searched as an INITIALIZATION is.
    pub(super) fn needs_scan(m: &CollectiveMsg) -> bool {
        m.family == Family::Tlp
            && match m.kind {
                Kind::INITIALIZATION | Kind::CONFIGURATION => m.pid != NO_PARTICIPANT,
                Kind::CONTRIBUTION | Kind::RESPONSE => m.pid == NO_PARTICIPANT,
                _ => false,
            }
    }

    /// The TLP kinds whose P_ID is the device ID of the engine they are for (a relay down the tree,
    /// docs/blocks/cpu.md §Messages): INITIALIZATION and configuration (FIG. 4). Their reverse lookup
    /// searches the P_ID.
    pub(super) fn names_an_engine(k: Kind) -> bool {
        k == Kind::INITIALIZATION || k == Kind::CONFIGURATION
    }

    pub(super) fn lookup(&self) -> Lookup {
        let m = &self.msg;
        let portals = m.family == Family::Portals;
        let skey = if portals { m.ctx & 0x1fff } else { m.ctx & 0xfff };
        let dkey = if portals { m.ctx } else { m.ctx & 0xfff };
        // The static table is direct-mapped (docs/blocks/cpu.md §Static table): the key's one entry,
        // a hit when it holds this key (its tag) in this family.
        let si = config::static_index(skey, self.p.static_entries);
        let e = &self.st[si];
        let s_hit = e.valid && e.portals == portals && e.key == skey;
        // The descriptors are indexed by (tree slot, reduction id) (docs/blocks/cpu.md §Descriptors): the
        // tree's slot is the one whose live descriptors belong to it (a search of the slots' tags, eight
        // at the default), the reduction id is ctx bits 15:13 (Portals; TLP: 0). A tree without a slot
        // takes the lowest free slot; none free: no descriptor.
        let (tree, rid) = (skey, if portals { usize::from(m.ctx >> 13) } else { 0 });
        let slots = self.d.len() / REDUCTIONS;
        let in_slot = |s: usize| &self.d[s * REDUCTIONS..(s + 1) * REDUCTIONS];
        let slot = (0..slots).find(|&s| in_slot(s).iter().any(|e| e.valid && e.portals == portals && Self::tree_of(e) == tree));
        let free_slot = (0..slots).find(|&s| in_slot(s).iter().all(|e| !e.valid));
        let (d, f) = match slot {
            Some(s) => {
                let i = s * REDUCTIONS + rid;
                debug_assert!(!self.d[i].valid || self.d[i].key == dkey);
                if self.d[i].valid { (Some(i), None) } else { (None, Some(i)) }
            }
            None => (None, free_slot.map(|s| s * REDUCTIONS + rid)),
        };
        // The participant: P_ID if given ([0169]), an index; else the reverse lookup that state SCAN did
        // (a TLP INITIALIZATION's P_ID is the device ID of the engine it is for, a relay,
        // docs/blocks/cpu.md §Messages, found the same way). Other messages use no participant.
        let init = !portals && Self::names_an_engine(m.kind);
        let (p_hit, p_idx, p_sender) = if Self::needs_scan(m) {
            (self.lk.p_hit, self.lk.p_idx, self.lk.p_hit)
        } else if m.pid != NO_PARTICIPANT && !init {
            let i = usize::from(m.pid);
            let hit = i < PBV_ENTRIES;
            // The P_ID's entry is read from the device-ID RAM (its word addressed at acceptance).
            let sender = hit && self.cfg.pbv[i].valid && self.cfg.pbv[i].device_id == m.src as u16;
            (hit, if hit { i } else { 0 }, sender)
        } else {
            (false, 0, false)
        };
        Lookup {
            s_hit,
            s_idx: si,
            d_hit: d.is_some(),
            d_idx: d.unwrap_or(0),
            f_hit: f.is_some(),
            f_idx: f.unwrap_or(0),
            p_hit,
            p_idx,
            p_sender,
        }
    }

    /// The tree of a descriptor (its static key: Portals ctx bits 12:0, TLP the CC_ID), the tag its
    /// slot holds.
    pub(super) fn tree_of(d: &Descriptor) -> u16 {
        if d.portals { d.key & 0x1fff } else { d.key & 0xfff }
    }

    /// State `SCAN`: one word of the reverse lookup (entries `scan_word * PBV_SCAN_ENTRIES` and the
    /// next ones): the lowest valid entry whose device ID is the requester's (or, for a TLP
    /// INITIALIZATION, its P_ID) is kept in `lk.p_*`; after the last word, `LOOKUP`. The RTL compares a
    /// word in one cycle and picks its lowest match in the next (the last word's in `LOOKUP`), to keep
    /// the RAM read, the compares and the priority encoder out of one cycle; the cycles and the
    /// participant `LOOKUP` ends with are the same, so the model does a word whole.
    pub(super) fn scan(&mut self) {
        let m = &self.msg;
        let who = if Self::names_an_engine(m.kind) { m.pid } else { m.src as u16 };
        let base = self.scan_word * PBV_SCAN_ENTRIES;
        if !self.lk.p_hit {
            let word = &self.cfg.pbv[base..base + PBV_SCAN_ENTRIES];
            if let Some(j) = word.iter().position(|e| e.valid && e.device_id == who) {
                self.lk.p_hit = true;
                self.lk.p_idx = base + j;
            }
        }
        if self.scan_word == PBV_SCAN_WORDS - 1 {
            self.seq = seq::LOOKUP;
        } else {
            self.scan_word += 1;
        }
    }
}
