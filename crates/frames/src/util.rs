//! Small helpers shared by the codecs: deku glue and checked byte access.

use crate::error::{deku_err, need, Error, Layer, Result};
use deku::{DekuContainerRead, DekuContainerWrite};

/// Reads a deku-declared header from the start of `buf[offset..]`, after checking that `len` bytes are
/// there (so the only deku error left is a bug, reported as [`Error::Deku`]).
pub(crate) fn read<'a, T: DekuContainerRead<'a>>(
    layer: Layer,
    field: &'static str,
    buf: &'a [u8],
    offset: usize,
    len: usize,
) -> Result<T> {
    need(layer, field, buf, offset, len)?;
    let slice = buf.get(offset..offset + len).ok_or(Error::Truncated {
        layer,
        field,
        offset,
        needed: offset + len,
        actual: buf.len(),
    })?;
    T::from_bytes((slice, 0)).map(|(_, v)| v).map_err(deku_err(layer, field))
}

/// Writes a deku-declared header into `out[offset..offset + len]`.
pub(crate) fn write<T: DekuContainerWrite>(
    layer: Layer,
    field: &'static str,
    value: &T,
    out: &mut [u8],
    offset: usize,
    len: usize,
) -> Result<()> {
    let actual = out.len();
    let slice = out
        .get_mut(offset..offset + len)
        .ok_or(Error::BufferTooSmall { layer, needed: offset + len, actual })?;
    let n = value.to_slice(slice).map_err(deku_err(layer, field))?;
    if n != len {
        return Err(Error::Deku { layer, context: field, message: format!("wrote {n} bytes, expected {len}") });
    }
    Ok(())
}

/// Copies `src` into `out[offset..]`.
pub(crate) fn put(layer: Layer, out: &mut [u8], offset: usize, src: &[u8]) -> Result<()> {
    let actual = out.len();
    let dst = out
        .get_mut(offset..offset + src.len())
        .ok_or(Error::BufferTooSmall { layer, needed: offset + src.len(), actual })?;
    dst.copy_from_slice(src);
    Ok(())
}

/// Borrows `buf[offset..offset + len]` or reports which field was truncated.
pub(crate) fn take<'a>(layer: Layer, field: &'static str, buf: &'a [u8], offset: usize, len: usize) -> Result<&'a [u8]> {
    need(layer, field, buf, offset, len)?;
    buf.get(offset..offset + len).ok_or(Error::Truncated { layer, field, offset, needed: offset + len, actual: buf.len() })
}

/// Reads a little-endian u32 at `offset`.
pub(crate) fn le32(layer: Layer, field: &'static str, buf: &[u8], offset: usize) -> Result<u32> {
    let mut a = [0u8; 4];
    a.copy_from_slice(take(layer, field, buf, offset, 4)?);
    Ok(u32::from_le_bytes(a))
}

/// Fails with [`Error::TrailingBytes`] unless the frame ended exactly at the end of the buffer.
pub(crate) fn exact(layer: Layer, end: usize, buf: &[u8]) -> Result<()> {
    if end != buf.len() {
        Err(Error::TrailingBytes { layer, expected: end, actual: buf.len() })
    } else {
        Ok(())
    }
}

/// `CamelCase` to `snake_case` (`FltMinMaxLoc` → `flt_min_max_loc`; digits stay with their word).
pub(crate) fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
