//! C ABI to the inswitch block models, for C/C++ testbenches and SystemVerilog through DPI-C.
//!
//! A model is created by block name and a parameter string (`"DATA_WIDTH=64,FIFO_DEPTH=16"`, RTL names,
//! unnamed parameters at their RTL defaults), then driven port by port: [`inswitch_model_set_input`] for
//! each input, [`inswitch_model_step`] for one rising clock edge, [`inswitch_model_output`] to read the
//! outputs as they were just before that edge (docs/architecture.md §Clock and reset). Ports are indexed
//! as the block registry orders them (inputs, then outputs; `clk` is not a port: a step is an edge).
//! For speed, [`inswitch_model_cycle`] does a whole cycle in one call: every input from one packed
//! vector, one step, every output into one packed vector ([`inswitch_model_packed_bits`] gives the layout);
//! the generated SystemVerilog makes one DPI call per cycle through it.
//!
//! Values are arrays of 32-bit words, word 0 = bits 31:0 (`svBitVecVal`, Verilator's `VlWide`).
//!
//! Errors are data: every function catches panics, checks its pointers, and returns
//! [`INSWITCH_OK`] or a negative status ([`INSWITCH_ERROR`], [`INSWITCH_PANIC`]); the reason is then
//! available as text from [`inswitch_last_error`] (per thread). A failed call leaves the model as it was.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use inswitch_model::registry::{self, DynBlock};

pub mod sv;

/// Success.
pub const INSWITCH_OK: i32 = 0;
/// The call was refused: bad name, parameter, port index, direction, buffer or pointer.
pub const INSWITCH_ERROR: i32 = -1;
/// The model panicked (a bug in the model): the model must not be used any more, only freed.
pub const INSWITCH_PANIC: i32 = -2;

/// An opaque model instance.
pub struct InswitchModel {
    block: Box<dyn DynBlock>,
    names: Vec<CString>,
    poisoned: bool,
    /// Set by [`testing_panic_on_next_call`] only.
    panic_next: bool,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic".into())
}

/// Runs `f`, turning an `Err` or a panic into a status and the last error.
fn guard(what: &str, f: impl FnOnce() -> Result<i32, String>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(msg)) => {
            set_error(&format!("{what}: {msg}"));
            INSWITCH_ERROR
        }
        Err(p) => {
            set_error(&format!("{what}: the model panicked: {}", panic_text(p.as_ref())));
            INSWITCH_PANIC
        }
    }
}

/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char, what: &str) -> Result<&'a str, String> {
    if s.is_null() {
        return Err(format!("{what} is a null pointer"));
    }
    CStr::from_ptr(s).to_str().map_err(|_| format!("{what} is not UTF-8"))
}

/// # Safety
/// `m` is null or a pointer from [`inswitch_model_new`] not yet freed.
#[inline]
unsafe fn model<'a>(m: *mut InswitchModel) -> Result<&'a mut InswitchModel, String> {
    let m = m.as_mut().ok_or("the model handle is a null pointer")?;
    if m.poisoned {
        return Err("the model panicked in an earlier call and can only be freed".into());
    }
    if m.panic_next {
        m.panic_next = false;
        panic!("planted panic (testing_panic_on_next_call)");
    }
    Ok(m)
}

/// The text of the last error on this thread (empty if none). Valid until the next call on this thread.
#[no_mangle]
pub extern "C" fn inswitch_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version (the project version).
#[no_mangle]
pub extern "C" fn inswitch_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Creates a model of `block` with parameters `params` (`NAME=VALUE` separated by commas; null or empty
/// for the RTL defaults), at power-on. Null on error ([`inswitch_last_error`] tells why).
///
/// # Safety
/// `block` and `params` are null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_new(block: *const c_char, params: *const c_char) -> *mut InswitchModel {
    let mut out: *mut InswitchModel = std::ptr::null_mut();
    guard("inswitch_model_new", || {
        let name = text(block, "the block name")?;
        let params = if params.is_null() { "" } else { text(params, "the parameter string")? };
        let spec = registry::block(name).map_err(|e| e.to_string())?;
        let p = spec.params_from_str(params).map_err(|e| e.to_string())?;
        let block = spec.instantiate(&p).map_err(|e| e.to_string())?;
        let names = block.ports().iter().map(|p| CString::new(p.name).unwrap_or_default()).collect();
        out = Box::into_raw(Box::new(InswitchModel { block, names, poisoned: false, panic_next: false }));
        Ok(INSWITCH_OK)
    });
    out
}

/// Frees a model (null is ignored).
///
/// # Safety
/// `m` is null or a pointer from [`inswitch_model_new`], freed once.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_free(m: *mut InswitchModel) {
    if !m.is_null() {
        // A panic in a model's destructor must not cross the ABI either.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(m))));
    }
}

/// Number of ports (inputs then outputs), or a negative status.
///
/// # Safety
/// `m` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_port_count(m: *mut InswitchModel) -> i32 {
    guard_model("inswitch_model_port_count", m, || Ok(model(m)?.block.ports().len() as i32))
}

/// Number of inputs (ports `0..inputs` are inputs), or a negative status.
///
/// # Safety
/// `m` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_input_count(m: *mut InswitchModel) -> i32 {
    guard_model("inswitch_model_input_count", m, || Ok(model(m)?.block.spec().input_count() as i32))
}

/// Describes port `index`: its name (valid while the model lives), width in bits and direction
/// (1 = output). Any of the out pointers may be null.
///
/// # Safety
/// `m` is null or a live model; the out pointers are null or writable.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_port(m: *mut InswitchModel, index: u32, name: *mut *const c_char, width: *mut u32, is_output: *mut u32) -> i32 {
    guard_model("inswitch_model_port", m, || {
        let m = model(m)?;
        let count = m.block.ports().len();
        let p = m.block.ports().get(index as usize).ok_or_else(|| {
            format!("block `{}` has {count} ports (0..{count}); there is no port {index}", m.block.spec().name)
        })?;
        if let Some(n) = name.as_mut() {
            *n = m.names[index as usize].as_ptr();
        }
        if let Some(w) = width.as_mut() {
            *w = p.width;
        }
        if let Some(o) = is_output.as_mut() {
            *o = u32::from(p.output);
        }
        Ok(INSWITCH_OK)
    })
}

/// Index of the port named `name`, or a negative status.
///
/// # Safety
/// `m` is null or a live model; `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_port_index(m: *mut InswitchModel, name: *const c_char) -> i32 {
    guard_model("inswitch_model_port_index", m, || {
        let m = model(m)?;
        let name = text(name, "the port name")?;
        m.block.port_index(name).map(|i| i as i32).map_err(|e| e.to_string())
    })
}

/// Sets input `index` from `nwords` words at `words` (at least the port's width in words; bits above the
/// width are ignored).
///
/// # Safety
/// `m` is null or a live model; `words` is null or points to `nwords` readable words.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_set_input(m: *mut InswitchModel, index: u32, words: *const u32, nwords: u32) -> i32 {
    guard_model("inswitch_model_set_input", m, || {
        let m = model(m)?;
        m.block.set_input(index as usize, slice(words, nwords)?).map_err(|e| e.to_string())?;
        Ok(INSWITCH_OK)
    })
}

/// One rising clock edge with the inputs set; the outputs become those just before the edge.
///
/// # Safety
/// `m` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_step(m: *mut InswitchModel) -> i32 {
    guard_model("inswitch_model_step", m, || {
        model(m)?.block.step();
        Ok(INSWITCH_OK)
    })
}

/// Recomputes the outputs for the inputs set now without a clock edge (combinational paths; costs a copy
/// of the model's state).
///
/// # Safety
/// `m` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_settle(m: *mut InswitchModel) -> i32 {
    guard_model("inswitch_model_settle", m, || {
        model(m)?.block.settle();
        Ok(INSWITCH_OK)
    })
}

/// Reads output `index` into `nwords` words at `words` (at least the port's width in words; extra words
/// are zeroed).
///
/// # Safety
/// `m` is null or a live model; `words` is null or points to `nwords` writable words.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_output(m: *mut InswitchModel, index: u32, words: *mut u32, nwords: u32) -> i32 {
    guard_model("inswitch_model_output", m, || {
        let m = model(m)?;
        m.block.output(index as usize, slice_mut(words, nwords)?).map_err(|e| e.to_string())?;
        Ok(INSWITCH_OK)
    })
}

/// Bits of the packed vector of all inputs (`is_output` 0) or all outputs (1), or a negative status.
/// Port `k` sits at bits `[off + width - 1 : off]`, `off` the sum of the widths of the ports of the same
/// direction before it (port order): the layout of the SystemVerilog concatenation `{last, ..., first}`.
///
/// # Safety
/// `m` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_packed_bits(m: *mut InswitchModel, is_output: u32) -> i32 {
    guard_model("inswitch_model_packed_bits", m, || Ok(registry::packed_bits(model(m)?.block.ports(), is_output != 0) as i32))
}

/// Sets every input from one packed vector of `nwords` words at `words` (layout:
/// [`inswitch_model_packed_bits`]); one call instead of one [`inswitch_model_set_input`] per port.
///
/// # Safety
/// `m` is null or a live model; `words` is null or points to `nwords` readable words.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_set_inputs(m: *mut InswitchModel, words: *const u32, nwords: u32) -> i32 {
    guard_model("inswitch_model_set_inputs", m, || {
        let m = model(m)?;
        m.block.set_inputs_packed(slice(words, nwords)?).map_err(|e| e.to_string())?;
        Ok(INSWITCH_OK)
    })
}

/// Reads every output into one packed vector of `nwords` words at `words` (layout:
/// [`inswitch_model_packed_bits`]; words past the last output's are zeroed).
///
/// # Safety
/// `m` is null or a live model; `words` is null or points to `nwords` writable words.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_outputs(m: *mut InswitchModel, words: *mut u32, nwords: u32) -> i32 {
    guard_model("inswitch_model_outputs", m, || {
        let m = model(m)?;
        m.block.outputs_packed(slice_mut(words, nwords)?).map_err(|e| e.to_string())?;
        Ok(INSWITCH_OK)
    })
}

/// One whole cycle in one call: sets every input from `inputs` (packed), steps one rising edge and reads
/// every output into `outputs` (packed), as [`inswitch_model_set_inputs`], [`inswitch_model_step`] and
/// [`inswitch_model_outputs`] would. The generated SV checkers make this one DPI call per cycle.
///
/// # Safety
/// `m` is null or a live model; `inputs` is null or points to `ninputs` readable words, `outputs` is null or
/// points to `noutputs` writable words.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_cycle(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    guard_model("inswitch_model_cycle", m, || {
        let m = model(m)?;
        let (ins, outs) = (slice(inputs, ninputs)?, slice_mut(outputs, noutputs)?);
        // One dynamic call; it checks both buffers (the outputs' first) before it changes the model.
        m.block.cycle_packed(ins, outs).map_err(|e| e.to_string())?;
        Ok(INSWITCH_OK)
    })
}

/// The outputs for new inputs without a clock edge, in one call: sets every input from `inputs` (packed),
/// recomputes the outputs as [`inswitch_model_settle`] does and reads every output into `outputs`
/// (packed), as [`inswitch_model_set_inputs`], [`inswitch_model_settle`] and [`inswitch_model_outputs`]
/// would. The generated drop-in model modules make this call when an input changes between edges.
///
/// # Safety
/// `m` is null or a live model; `inputs` is null or points to `ninputs` readable words, `outputs` is null or
/// points to `noutputs` writable words.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_eval(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    guard_model("inswitch_model_eval", m, || {
        let m = model(m)?;
        let (ins, outs) = (slice(inputs, ninputs)?, slice_mut(outputs, noutputs)?);
        m.block.eval_packed(ins, outs).map_err(|e| e.to_string())?;
        Ok(INSWITCH_OK)
    })
}

// The same call under one C name per width of the SystemVerilog vectors that carry it. A DPI-C import
// fixes the width of its `bit [N-1:0]` arguments, and every import of one C name must have the same
// signature, so the generated SV (crates/dpi/src/sv.rs) picks, per module at elaboration, the narrowest
// of these that holds its inputs and its outputs: Verilator copies the whole vector in and out of every
// call, 2,048 bits for a block that packs 200. The C signature (and the function) is the same for all.

/// [`inswitch_model_cycle`], imported in SV with `bit [63:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_cycle`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_cycle_64(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_cycle(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_cycle`], imported in SV with `bit [127:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_cycle`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_cycle_128(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_cycle(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_cycle`], imported in SV with `bit [255:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_cycle`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_cycle_256(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_cycle(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_cycle`], imported in SV with `bit [511:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_cycle`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_cycle_512(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_cycle(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_cycle`], imported in SV with `bit [1023:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_cycle`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_cycle_1024(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_cycle(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_eval`], imported in SV with `bit [63:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_eval`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_eval_64(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_eval(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_eval`], imported in SV with `bit [127:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_eval`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_eval_128(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_eval(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_eval`], imported in SV with `bit [255:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_eval`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_eval_256(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_eval(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_eval`], imported in SV with `bit [511:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_eval`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_eval_512(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_eval(m, inputs, ninputs, outputs, noutputs)
}

/// [`inswitch_model_eval`], imported in SV with `bit [1023:0]` vectors.
///
/// # Safety
/// As [`inswitch_model_eval`].
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_eval_1024(m: *mut InswitchModel, inputs: *const u32, ninputs: u32, outputs: *mut u32, noutputs: u32) -> i32 {
    inswitch_model_eval(m, inputs, ninputs, outputs, noutputs)
}

/// # Safety
/// `words` is null or points to `n` readable words.
unsafe fn slice<'a>(words: *const u32, n: u32) -> Result<&'a [u32], String> {
    if words.is_null() {
        return Err("the word buffer is a null pointer".into());
    }
    Ok(std::slice::from_raw_parts(words, n as usize))
}

/// # Safety
/// `words` is null or points to `n` writable words.
unsafe fn slice_mut<'a>(words: *mut u32, n: u32) -> Result<&'a mut [u32], String> {
    if words.is_null() {
        return Err("the word buffer is a null pointer".into());
    }
    Ok(std::slice::from_raw_parts_mut(words, n as usize))
}

/// Back to the power-on state; inputs and outputs 0.
///
/// # Safety
/// `m` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn inswitch_model_reset(m: *mut InswitchModel) -> i32 {
    guard_model("inswitch_model_reset", m, || {
        model(m)?.block.reset();
        Ok(INSWITCH_OK)
    })
}

/// [`guard`] for a call on model `m`: a panic poisons the model (its state may be half updated), so that
/// every later call but [`inswitch_model_free`] is refused.
///
/// # Safety
/// `m` is null or a live model.
unsafe fn guard_model(what: &str, m: *mut InswitchModel, f: impl FnOnce() -> Result<i32, String>) -> i32 {
    let status = guard(what, f);
    if status == INSWITCH_PANIC {
        if let Some(m) = m.as_mut() {
            m.poisoned = true;
        }
    }
    status
}

/// Test hook, not part of the C ABI (not exported, not in the header): the next call on `m` panics inside
/// the library as a bug in a model would, so that a test can check the panic is caught, reported as
/// [`INSWITCH_PANIC`] with a message, and poisons the model, instead of aborting the process.
///
/// # Safety
/// `m` is null or a live model.
#[doc(hidden)]
pub unsafe fn testing_panic_on_next_call(m: *mut InswitchModel) {
    if let Some(m) = m.as_mut() {
        m.panic_next = true;
    }
}

/// Number of registered blocks.
#[no_mangle]
pub extern "C" fn inswitch_block_count() -> u32 {
    registry::blocks().len() as u32
}

/// Name of registered block `index` (a static string), or null past the end.
#[no_mangle]
pub extern "C" fn inswitch_block_name(index: u32) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<CString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| registry::blocks().iter().map(|b| CString::new(b.name).unwrap_or_default()).collect());
    names.get(index as usize).map_or(std::ptr::null(), |c| c.as_ptr())
}
