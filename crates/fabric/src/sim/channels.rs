//! The fabric's channels, one direction of a link each, by index: each end node's link up, then down,
//! every directed ISL ([`Routes::directed`]), then each engine's port in, then out ([`ChannelKind`]).
//!
//! A directed ISL's channel is stored only once a frame has entered it. Until then it is implicit: its
//! kind and link follow from its index and the routes, its counters are zero. A flattened butterfly of
//! 1,024 switches has 1,047,552 directed ISLs, of which an all-reduce uses a few thousand; a stored
//! channel for each (56 bytes) was 59 MB written at build time, the largest part of the memory that
//! grew with the square of the switches (issue 23).

use crate::topology::{LinkSpec, Ps, Routes};

/// What a channel joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    /// End node → its switch.
    Up(usize),
    /// Switch → end node.
    Down(usize),
    /// Directed ISL `i` (`Routes::directed`).
    Isl(usize),
    /// Crossbar → engine of switch `s`.
    ToEngine(usize),
    /// Engine of switch `s` → crossbar (serializes the stand-in's frames; cycle engines emit at port rate
    /// themselves).
    FromEngine(usize),
}

/// One direction of a link.
#[derive(Clone, Copy, Debug)]
pub struct Channel {
    /// What it joins.
    pub kind: ChannelKind,
    /// Bandwidth and delay.
    pub link: LinkSpec,
    pub(super) free_at: Ps,
    /// Frames carried.
    pub frames: u64,
    /// Bytes carried (serialized sizes).
    pub bytes: u64,
}

/// `slot` entry of a directed ISL whose channel is still implicit.
const IMPLICIT: u32 = 0;

/// Every channel of a fabric (module doc).
#[derive(Clone, Debug)]
pub(super) struct Channels {
    /// The end nodes' links (up, then down), then the engines' ports (in, then out).
    stored: Vec<Channel>,
    /// Channel index of directed ISL 0, i.e. the end nodes' links before it.
    isl_base: usize,
    /// Directed ISLs.
    isls: usize,
    /// Per directed ISL: [`IMPLICIT`], or 1 + its channel's place in `created`. Zero-filled, so the
    /// allocator maps pages that stay untouched until an ISL on them carries a frame.
    slot: Vec<u32>,
    /// The directed ISLs' channels created so far, in the order of their first frame.
    created: Vec<Channel>,
}

impl Channels {
    /// Channels `before` (the end nodes' links), then `isls` directed ISLs, then `after` (the engines'
    /// ports).
    pub(super) fn new(mut before: Vec<Channel>, isls: usize, after: Vec<Channel>) -> Channels {
        let isl_base = before.len();
        before.extend(after);
        Channels { stored: before, isl_base, isls, slot: vec![IMPLICIT; isls], created: Vec::new() }
    }

    /// Number of channels.
    pub(super) fn len(&self) -> usize {
        self.stored.len() + self.isls
    }

    /// Channel index of directed ISL `i`.
    pub(super) fn isl_channel(&self, i: usize) -> usize {
        self.isl_base + i
    }

    /// Channel index of stored channel `k` after the ISLs (`k` counts from the first engine port).
    pub(super) fn after_isls(&self, k: usize) -> usize {
        self.isl_base + self.isls + k
    }

    /// Where channel `c` is: `Ok(stored index)` or `Err(directed ISL)`.
    fn place(&self, c: usize) -> Result<usize, usize> {
        match c.checked_sub(self.isl_base) {
            None => Ok(c),
            Some(i) if i < self.isls => Err(i),
            Some(i) => Ok(self.isl_base + i - self.isls),
        }
    }

    /// Channel `c` (panics if there is none, as an index would).
    pub(super) fn get(&self, c: usize, routes: &Routes) -> Channel {
        match self.place(c) {
            Ok(k) => self.stored[k],
            Err(i) => match self.slot[i] {
                IMPLICIT => implicit(i, routes),
                s => self.created[s as usize - 1],
            },
        }
    }

    /// Channel `c`, created if it is an implicit ISL.
    pub(super) fn get_mut(&mut self, c: usize, routes: &Routes) -> &mut Channel {
        match self.place(c) {
            Ok(k) => &mut self.stored[k],
            Err(i) => {
                if self.slot[i] == IMPLICIT {
                    self.created.push(implicit(i, routes));
                    self.slot[i] = self.created.len() as u32;
                }
                &mut self.created[self.slot[i] as usize - 1]
            }
        }
    }

    /// Every channel, in index order.
    pub(super) fn iter<'a>(&'a self, routes: &'a Routes) -> impl Iterator<Item = Channel> + 'a {
        (0..self.len()).map(move |c| self.get(c, routes))
    }
}

/// The channel of directed ISL `i` before any frame entered it.
fn implicit(i: usize, routes: &Routes) -> Channel {
    Channel { kind: ChannelKind::Isl(i), link: routes.directed(i).2, free_at: 0, frames: 0, bytes: 0 }
}
