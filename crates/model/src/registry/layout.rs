//! How a model's packed vectors (`packed.rs`) are read and written, chosen once per model: through a
//! run-time table of slots ([`Table`]: any parameter set), or through a layout compiled in ([`Fixed`]) for
//! the ports' widths of the parameter sets listed in `fixed_table.rs` (generated: each block at its RTL
//! defaults and at each data width the model accepts, `fixed_gen.rs`). With a compiled layout every port's
//! word, shift and mask are constants in the code and its words lie in a fixed-size array, so a port is
//! read or written by a few constant shifts and masks, with no slot loads and no bounds checks (the
//! run-time table costs about ten instructions a port, docs/performance.md). A model is given a compiled
//! layout only when its ports' widths are exactly the listed ones, so a stale list costs speed, never
//! correctness.

use std::marker::PhantomData;

use super::packed::{self, Pack, Slot, SlotTable, Unpack};
use crate::signal::Ports;

/// Words after the packed ports that let every port's read or write be one window of up to four words
/// (a port of 64 bits or less read as two 64-bit halves from its first word, which is at most the last
/// word of the ports); the generated SV's vectors (a power of two of at least 64 bits) usually have them.
pub(super) const PAD: usize = 3;

/// Reads a block's packed inputs into its `In` struct and writes its `Out` struct as packed outputs.
pub(super) trait Layout<I: Ports, O: Ports>: Send + 'static {
    /// 32-bit words of the packed inputs (`[0]`) and outputs (`[1]`): the least a caller's buffer holds.
    fn words(&self) -> [usize; 2];
    /// Sets `dst` from `bits`, which holds the packed inputs ([`Layout::words`], checked by the caller).
    fn unpack(&mut self, bits: &[u32], dst: &mut I);
    /// Packs `src` into `bits`, which holds the packed outputs (checked by the caller); the words of `bits`
    /// past the outputs' are zeroed.
    fn pack(&mut self, src: &O, bits: &mut [u32]);
    /// [`Layout::pack`] through a shared reference (for `DynBlock::outputs_packed`).
    fn pack_shared(&self, src: &O, bits: &mut [u32]);
    /// Whether this is a layout compiled in ([`Fixed`]).
    fn compiled(&self) -> bool;
}

/// The run-time layout: each port's slot in a table computed when the model is built.
pub(super) struct Table {
    /// Where each input, each output sits in the packed vectors.
    slots: [Vec<Slot>; 2],
    words: [usize; 2],
    /// The packed inputs and outputs copied through when a caller's buffer leaves less than [`PAD`] words
    /// after the ports (`words + PAD` words, the last `PAD` of the inputs' always 0), so that every port's
    /// words are read or written as one fixed-size window.
    pad: [Vec<u32>; 2],
}

impl Table {
    /// The layout of inputs of widths `inputs` and outputs of widths `outputs`.
    pub(super) fn new(inputs: &[u32], outputs: &[u32]) -> Self {
        let words = [packed::packed_words(inputs), packed::packed_words(outputs)];
        Table { slots: [packed::slots(inputs), packed::slots(outputs)], words, pad: words.map(|w| vec![0; w + PAD]) }
    }
}

impl<I: Ports, O: Ports> Layout<I, O> for Table {
    #[inline(always)]
    fn words(&self) -> [usize; 2] {
        self.words
    }
    #[inline(always)]
    fn unpack(&mut self, inputs: &[u32], dst: &mut I) {
        // The slot tables cut to the port counts, constants here: the per-port index checks fold away.
        let slots = &self.slots[0][..I::NAMES.len()];
        let need = self.words[0];
        let bits = if inputs.len() >= need + PAD {
            inputs
        } else {
            self.pad[0][..need].copy_from_slice(&inputs[..need]);
            &self.pad[0]
        };
        dst.fill_ports_in_place(&mut Unpack::new(bits, slots));
    }
    #[inline(always)]
    fn pack(&mut self, src: &O, outputs: &mut [u32]) {
        let slots = &self.slots[1][..O::NAMES.len()];
        if outputs.len() >= self.words[1] + PAD {
            src.visit_ports(&mut Pack::new(outputs, slots));
        } else {
            let pad = &mut self.pad[1];
            src.visit_ports(&mut Pack::new(pad, slots));
            outputs.copy_from_slice(&pad[..outputs.len()]);
        }
    }
    fn pack_shared(&self, src: &O, outputs: &mut [u32]) {
        // The ports near the end of a buffer without `PAD` words after them take the window's tail path.
        src.visit_ports(&mut Pack::new(outputs, &self.slots[1][..O::NAMES.len()]));
    }
    fn compiled(&self) -> bool {
        false
    }
}

/// A layout compiled in: the slots of every input and output, computed at compile time from the ports'
/// widths ([`fixed_layouts!`]).
pub(super) trait FixedSlots: 'static {
    /// Each input's slot, in `In` order.
    const INPUTS: &'static [Slot];
    /// Each output's slot, in `Out` order.
    const OUTPUTS: &'static [Slot];
    /// 32-bit words of the packed inputs.
    const IN_WORDS: usize;
    /// 32-bit words of the packed outputs.
    const OUT_WORDS: usize;
}

/// [`FixedSlots`]' inputs (`OUT` false) or outputs as a [`SlotTable`]: an entry read at a constant index
/// is a constant.
struct Compiled<L, const OUT: bool>(PhantomData<fn() -> L>);

// By hand: a derive would ask `L: Copy`.
impl<L, const OUT: bool> Clone for Compiled<L, OUT> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L, const OUT: bool> Copy for Compiled<L, OUT> {}

impl<L: FixedSlots, const OUT: bool> SlotTable for Compiled<L, OUT> {
    #[inline(always)]
    fn slot(self, index: usize) -> Slot {
        if OUT {
            L::OUTPUTS[index]
        } else {
            L::INPUTS[index]
        }
    }
}

/// The layout `L` compiled in. `WI` and `WO` are `L::IN_WORDS + PAD` and `L::OUT_WORDS + PAD` (array
/// lengths cannot be computed from a generic's constants on stable Rust, so [`fixed_layouts!`] passes them).
pub(super) struct Fixed<L, const WI: usize, const WO: usize>(PhantomData<fn() -> L>);

impl<L, const WI: usize, const WO: usize> Fixed<L, WI, WO> {
    pub(super) fn new() -> Self {
        Fixed(PhantomData)
    }
}

impl<L: FixedSlots, I: Ports, O: Ports, const WI: usize, const WO: usize> Layout<I, O> for Fixed<L, WI, WO> {
    #[inline(always)]
    fn words(&self) -> [usize; 2] {
        [L::IN_WORDS, L::OUT_WORDS]
    }
    #[inline(always)]
    fn unpack(&mut self, inputs: &[u32], dst: &mut I) {
        // The ports' words in a fixed-size array with `PAD` zero words after them, so that every port's
        // window lies in it at a constant index: no bounds check, no tail path (the copy folds into the
        // ports' loads).
        let mut w = [0u32; WI];
        w[..L::IN_WORDS].copy_from_slice(&inputs[..L::IN_WORDS]);
        dst.fill_ports_in_place(&mut Unpack::new(&w, Compiled::<L, false>(PhantomData)));
    }
    #[inline(always)]
    fn pack(&mut self, src: &O, outputs: &mut [u32]) {
        <Self as Layout<I, O>>::pack_shared(self, src, outputs);
    }
    #[inline(always)]
    fn pack_shared(&self, src: &O, outputs: &mut [u32]) {
        // Every port ORed into a fixed-size array at constant indices (kept in registers), then stored over
        // the caller's words, zeroed first only if there are words past the outputs' (the compiler drops
        // the zero stores that the outputs' words overwrite).
        let mut w = [0u32; WO];
        src.visit_ports(&mut Pack::onto_zeroed(&mut w, Compiled::<L, true>(PhantomData)));
        if outputs.len() > L::OUT_WORDS {
            packed::zero_words(outputs);
        }
        outputs[..L::OUT_WORDS].copy_from_slice(&w[..L::OUT_WORDS]);
    }
    fn compiled(&self) -> bool {
        true
    }
}

/// A block's compiled layouts (`fixed_table.rs`), implemented for its `In` struct by [`fixed_layouts!`].
pub(super) trait FixedLayouts: Ports {
    /// Hands `to` the layout of inputs of widths `inputs` and outputs of widths `outputs`: the compiled one
    /// with exactly these widths if there is one, else a [`Table`].
    fn select<O: Ports, W: WithLayout<Self, O>>(inputs: &[u32], outputs: &[u32], to: W) -> W::Output;
}

/// What [`FixedLayouts::select`] hands the chosen layout to (the registry builds its model around it).
pub(super) trait WithLayout<I: Ports, O: Ports> {
    /// What it makes of it.
    type Output;
    /// Takes the layout.
    fn with<K: Layout<I, O>>(self, layout: K) -> Self::Output;
}

/// Implements [`FixedLayouts`] for each listed `In` struct: `InType { [input widths] => [output widths], ... }`,
/// one compiled layout (a local type with constant slots) per entry.
macro_rules! fixed_layouts {
    ($($in:ty { $( [$($i:literal),* $(,)?] => [$($o:literal),* $(,)?] ),* $(,)? })*) => {$(
        impl $crate::registry::layout::FixedLayouts for $in {
            fn select<O, W>(inputs: &[u32], outputs: &[u32], to: W) -> W::Output
            where
                O: $crate::signal::Ports,
                W: $crate::registry::layout::WithLayout<Self, O>,
            {
                $({
                    use $crate::registry::layout::{Fixed, FixedSlots, PAD};
                    use $crate::registry::packed::{fixed_slots, packed_words, Slot};
                    struct L;
                    impl FixedSlots for L {
                        const INPUTS: &'static [Slot] = &fixed_slots([$($i),*]);
                        const OUTPUTS: &'static [Slot] = &fixed_slots([$($o),*]);
                        const IN_WORDS: usize = packed_words(&[$($i),*]);
                        const OUT_WORDS: usize = packed_words(&[$($o),*]);
                    }
                    if inputs == &[$($i),*][..] && outputs == &[$($o),*][..] {
                        return to.with(Fixed::<L, { packed_words(&[$($i),*]) + PAD }, { packed_words(&[$($o),*]) + PAD }>::new());
                    }
                })*
                to.with($crate::registry::layout::Table::new(inputs, outputs))
            }
        }
    )*};
}
pub(super) use fixed_layouts;
