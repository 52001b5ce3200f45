//! Register slice for one valid/ready stream: cycle model of `rtl/axis_register.v`
//! (`docs/blocks/axis_register.md`).
//!
//! The packet-engine top puts one on every stream between two blocks so that no combinational path
//! crosses a block boundary: `m_axis_tvalid`, `m_axis_tdata` and `s_axis_tready` are all registers. A
//! skid register keeps full throughput (one beat per cycle) although `s_axis_tready` is registered.
//!
//! [`Slice`] is the register pair over any payload type, used by [`crate::packet_engine`] with the blocks'
//! own message and beat types (its outputs can be read *before* the cycle's inputs are known, which is
//! what lets the top evaluate every block once per cycle). [`AxisRegister`] is the same slice behind
//! the RTL module's ports (a flat `WIDTH`-bit payload), for its own co-simulation.

use crate::signal::{Block, Wide, WIDE_MAX_BITS};
use crate::ports;

/// A two-entry register slice over payload `T`: an output register and a skid register.
///
/// Outputs ([`Slice::m_valid`], [`Slice::m_data`], [`Slice::s_ready`]) are functions of the registers
/// only; [`Slice::edge`] is the rising clock edge.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Slice<T> {
    out_data: T,
    out_valid: bool,
    skid_data: T,
    skid_valid: bool,
}

impl<T: Copy> Slice<T> {
    /// A slice with both registers empty and `data` (the power-on value) in both data registers.
    pub fn new(data: T) -> Self {
        Slice { out_data: data, out_valid: false, skid_data: data, skid_valid: false }
    }

    /// `m_axis_tvalid`.
    #[inline]
    pub fn m_valid(&self) -> bool {
        self.out_valid
    }

    /// `m_axis_tdata` (the last beat loaded, also while `m_valid` is low).
    #[inline]
    pub fn m_data(&self) -> &T {
        &self.out_data
    }

    /// `s_axis_tready`: the skid register is empty, so a beat offered now has somewhere to go.
    #[inline]
    pub fn s_ready(&self) -> bool {
        !self.skid_valid
    }

    /// Beats held (0, 1 or 2).
    pub fn level(&self) -> usize {
        usize::from(self.out_valid) + usize::from(self.skid_valid)
    }

    /// The rising edge with `s_axis_tvalid`, `s_axis_tdata` and `m_axis_tready` (the RTL's `_next` logic).
    #[inline]
    pub fn edge(&mut self, rst: bool, s_valid: bool, s_data: &T, m_ready: bool) {
        self.edge_with(rst, s_valid, m_ready, || *s_data);
    }

    /// [`Slice::edge`] with the payload built by `s_data` only if the slice takes a beat (the data
    /// registers load only then), so a caller pays for packing a payload once per beat, not per cycle.
    /// Returns whether the output data register loaded (so [`Slice::m_data`] may have changed): a
    /// caller that keeps a copy of it refreshes the copy only then.
    #[inline]
    pub fn edge_with(&mut self, rst: bool, s_valid: bool, m_ready: bool, s_data: impl FnOnce() -> T) -> bool {
        let in_take = s_valid && !self.skid_valid;
        let mut loaded = false;
        if !self.out_valid || m_ready {
            if self.skid_valid {
                // The parked beat is older than anything on s_axis (none is taken while one is parked).
                self.out_data = self.skid_data;
                self.out_valid = true;
                self.skid_valid = false;
                loaded = true;
            } else {
                if in_take {
                    self.out_data = s_data();
                    loaded = true;
                }
                self.out_valid = in_take;
            }
        } else if in_take {
            self.skid_data = s_data();
            self.skid_valid = true;
        }
        if rst {
            self.out_valid = false;
            self.skid_valid = false;
        }
        loaded
    }
}

ports! {
    /// Inputs of `rtl/axis_register.v` (clk aside).
    pub struct AxisRegisterIn {
        /// Synchronous, active-high reset (clears both valid flags).
        pub rst: bool,
        /// Payload from the upstream block.
        pub s_axis_tdata: Wide,
        /// The upstream block offers a beat.
        pub s_axis_tvalid: bool,
        /// The downstream block takes the beat on `m_axis`.
        pub m_axis_tready: bool,
    }
}

ports! {
    /// Outputs of `rtl/axis_register.v`.
    pub struct AxisRegisterOut {
        /// A beat offered now is taken (the skid register is empty).
        pub s_axis_tready: bool,
        /// Payload to the downstream block.
        pub m_axis_tdata: Wide,
        /// A beat is offered to the downstream block.
        pub m_axis_tvalid: bool,
    }
}

/// A `WIDTH` the slice cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("axis_register WIDTH {0} is not between 1 and {WIDE_MAX_BITS} (the model's Wide)")]
pub struct AxisRegisterParamError(pub usize);

/// `rtl/axis_register.v` at one `WIDTH` (at most [`WIDE_MAX_BITS`]: the payload is a [`Wide`]).
#[derive(Clone, Debug)]
pub struct AxisRegister {
    width: usize,
    slice: Slice<Wide>,
}

impl AxisRegister {
    /// The slice at power-on (every register 0, as the Verilated RTL starts).
    pub fn new(width: usize) -> Result<Self, AxisRegisterParamError> {
        if width == 0 || width > WIDE_MAX_BITS {
            return Err(AxisRegisterParamError(width));
        }
        Ok(AxisRegister { width, slice: Slice::new(Wide::ZERO) })
    }

    /// `WIDTH`.
    pub fn width(&self) -> usize {
        self.width
    }
}

impl Block for AxisRegister {
    type In = AxisRegisterIn;
    type Out = AxisRegisterOut;

    fn step(&mut self, i: &AxisRegisterIn) -> AxisRegisterOut {
        let out = AxisRegisterOut {
            s_axis_tready: self.slice.s_ready(),
            m_axis_tdata: *self.slice.m_data(),
            m_axis_tvalid: self.slice.m_valid(),
        };
        let data = i.s_axis_tdata.truncated(self.width);
        self.slice.edge(i.rst, i.s_axis_tvalid, &data, i.m_axis_tready);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_beat_per_cycle_and_a_stall_parks_one_beat() {
        let mut s = Slice::new(0u32);
        // Streaming: each beat is out the cycle after it is taken.
        for k in 1..=4 {
            assert!(s.s_ready());
            s.edge(false, true, &k, true);
            assert!(s.m_valid());
            assert_eq!(*s.m_data(), k);
        }
        // Downstream stalls: the beat offered this cycle is parked, ready drops.
        s.edge(false, true, &5, false);
        assert_eq!((s.level(), s.s_ready(), *s.m_data()), (2, false, 4));
        // Upstream keeps offering 6 but it is not taken while 5 is parked.
        s.edge(false, true, &6, false);
        assert_eq!(s.level(), 2);
        s.edge(false, true, &6, true);
        assert_eq!((*s.m_data(), s.s_ready(), s.level()), (5, true, 1));
        s.edge(false, true, &6, true);
        assert_eq!(*s.m_data(), 6);
        s.edge(false, false, &7, true);
        assert!(!s.m_valid());
        assert_eq!(*s.m_data(), 6, "data holds when no beat is taken");
        s.edge(false, true, &8, false);
        s.edge(true, true, &9, false);
        assert_eq!((s.level(), s.s_ready()), (0, true));
    }

    #[test]
    fn the_block_truncates_to_its_width() {
        let mut b = AxisRegister::new(12).unwrap();
        let mut d = Wide::ZERO;
        d.0[0] = 0xFFFF;
        b.step(&AxisRegisterIn { s_axis_tdata: d, s_axis_tvalid: true, m_axis_tready: true, ..Default::default() });
        let o = b.step(&AxisRegisterIn::default());
        assert!(o.m_axis_tvalid && o.s_axis_tready);
        assert_eq!(o.m_axis_tdata.0[0], 0xFFF);
        assert!(AxisRegister::new(0).is_err() && AxisRegister::new(513).is_err());
    }
}
