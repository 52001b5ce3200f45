// The tests' deterministic byte source (xorshift64, Marsaglia 2003), shared by the unit tests of
// `src/field.rs` (`include!` under `cfg(test)`) and by `tests/roundtrip.rs` (`#[path]` module): test code only, so it
// is included as a file in both rather than exported by the crate.

/// An endless stream of bytes from xorshift64 started at `seed` (not 0): the low byte of each state.
pub fn xorshift_bytes(seed: u64) -> impl Iterator<Item = u8> {
    let mut x = seed;
    std::iter::repeat_with(move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    })
}
