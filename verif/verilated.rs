//! Verilated RTL models behind the [`Block`] trait.
//!
//! build.rs links every model of its table and generates [`MODELS`]; [`VerilatedDut::new`] opens one by
//! name, checks that its ports are exactly the fields of the block's `In`/`Out` structs (names, directions
//! and widths), and keeps raw pointers to Verilator's port storage, so a cycle costs one store per input
//! port, one load per output port and two `eval()` calls.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::marker::PhantomData;
use std::path::Path;

use inswitch_model::signal::{PortFiller, PortVisitor, MAX_PORT_WORDS};
use inswitch_model::{Block, Ports, Signal};

use crate::HarnessError;

/// One port as the C++ shim describes it (`struct inswitch_port` in verif/shim/inswitch_shim.h).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RawPort {
    name: *const c_char,
    width: u32,
    output: u32,
    data: *mut c_void,
}

/// The C ABI of one Verilated model.
#[derive(Clone, Copy)]
pub struct ModelAbi {
    new: unsafe extern "C" fn() -> *mut c_void,
    delete: unsafe extern "C" fn(*mut c_void),
    ports: unsafe extern "C" fn(*mut c_void, *mut RawPort, usize) -> usize,
    eval_low: unsafe extern "C" fn(*mut c_void),
    eval_high: unsafe extern "C" fn(*mut c_void),
    trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    trace_close: unsafe extern "C" fn(*mut c_void),
}

/// A Verilated model linked into this crate: an RTL top at one parameter set.
pub struct ModelInfo {
    /// Unique name (build.rs `MODELS`).
    pub name: &'static str,
    /// RTL top module.
    pub top: &'static str,
    /// Parameter overrides it was verilated with; the others are the RTL defaults.
    pub params: &'static [(&'static str, &'static str)],
    abi: ModelAbi,
}

/// A model's coverage writer (`<prefix>_coverage_write` in the shim): 0 when written, -1 in a build
/// without coverage.
pub type CoverageWriteFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;

include!(concat!(env!("OUT_DIR"), "/verilated_models.rs"));

thread_local! {
    /// Where the Verilated models of this thread write their coverage when dropped (`inswitch coverage`).
    /// Per thread, so that the worker threads of a regression each choose, and set without changing the
    /// signature every target's run function shares.
    static COVERAGE_DIR: std::cell::RefCell<Option<std::path::PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// Makes every Verilated model dropped later on this thread write its coverage counts into `dir`, one
/// file per model instance, named `<model>-<process>-<n>.dat` with `n` unique in the process (`None`
/// stops it). Only a coverage build (the `coverage` feature, [`COVERAGE_BUILD`]) has counts to write.
pub fn collect_coverage_into(dir: Option<std::path::PathBuf>) {
    COVERAGE_DIR.with(|d| *d.borrow_mut() = dir);
}

/// Coverage files written so far in this process, for unique names.
static COVERAGE_FILES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Finds a linked model by name.
pub fn model_info(name: &str) -> Result<&'static ModelInfo, HarnessError> {
    MODELS.iter().find(|m| m.name == name).ok_or_else(|| HarnessError::UnknownModel {
        name: name.to_string(),
        known: MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
    })
}

/// Every port of the linked model `name` as Verilator sees it: (name, width, output), in header order.
pub fn rtl_port_list(name: &str) -> Result<Vec<(String, u32, bool)>, HarnessError> {
    let info = model_info(name)?;
    const MAX_PORTS: usize = 1024;
    let empty = RawPort { name: std::ptr::null(), width: 0, output: 0, data: std::ptr::null_mut() };
    let mut raw = vec![empty; MAX_PORTS];
    // SAFETY: the ABI functions come from the shim generated for this model; the shim writes at most
    // `cap` entries; the handle is deleted once, after its names (string literals) were copied.
    let list = unsafe {
        let handle = (info.abi.new)();
        let n = (info.abi.ports)(handle, raw.as_mut_ptr(), MAX_PORTS).min(MAX_PORTS);
        let list = raw[..n].iter().map(|p| (CStr::from_ptr(p.name).to_string_lossy().into_owned(), p.width, p.output != 0)).collect();
        (info.abi.delete)(handle);
        list
    };
    Ok(list)
}

/// How Verilator stores a port of a given width.
#[derive(Clone, Copy)]
enum Storage {
    U8(*mut u8),
    U16(*mut u16),
    U32(*mut u32),
    U64(*mut u64),
    Wide(*mut u32, usize),
}

impl Storage {
    fn of(p: &RawPort) -> Storage {
        match p.width {
            0..=8 => Storage::U8(p.data.cast()),
            9..=16 => Storage::U16(p.data.cast()),
            17..=32 => Storage::U32(p.data.cast()),
            33..=64 => Storage::U64(p.data.cast()),
            w => Storage::Wide(p.data.cast(), w.div_ceil(32) as usize),
        }
    }
}

/// A bound port: where the value lives and which bits are meaningful.
#[derive(Clone, Copy)]
struct Bound {
    storage: Storage,
    width: u32,
}

impl Bound {
    /// Stores a value, truncated to the port width as a wire would (Verilator expects clean high bits).
    ///
    /// Safety: `storage` points into the live model that owns this port table.
    unsafe fn store<S: Signal>(&self, v: &S) {
        let mut w = [0u32; MAX_PORT_WORDS];
        // Only the words the port has: a narrow port's value converts to 2 words, not 16 (issue 23).
        let words = match self.storage {
            Storage::Wide(_, n) => n,
            _ => 2,
        };
        v.to_words(&mut w[..words]);
        let lo = u64::from(w[0]) | (u64::from(w[1]) << 32);
        let mask = if self.width >= 64 { u64::MAX } else { (1u64 << self.width) - 1 };
        match self.storage {
            Storage::U8(p) => *p = (lo & mask) as u8,
            Storage::U16(p) => *p = (lo & mask) as u16,
            Storage::U32(p) => *p = (lo & mask) as u32,
            Storage::U64(p) => *p = lo & mask,
            Storage::Wide(p, n) => {
                let top_bits = self.width % 32;
                for (i, word) in w.iter().enumerate().take(n) {
                    let clean = if i == n - 1 && top_bits != 0 { word & ((1 << top_bits) - 1) } else { *word };
                    *p.add(i) = clean;
                }
            }
        }
    }

    /// Loads a value.
    ///
    /// Safety: as for [`Bound::store`].
    unsafe fn load<S: Signal>(&self) -> S {
        match self.storage {
            Storage::U8(p) => S::from_words(&[u32::from(*p)]),
            Storage::U16(p) => S::from_words(&[u32::from(*p)]),
            Storage::U32(p) => S::from_words(&[*p]),
            Storage::U64(p) => S::from_words(&[*p as u32, (*p >> 32) as u32]),
            Storage::Wide(p, n) => S::from_words(std::slice::from_raw_parts(p, n)),
        }
    }
}

/// A Verilated RTL model as a [`Block`] with the same `In`/`Out` as its Rust model.
pub struct VerilatedDut<I: Ports, O: Ports> {
    info: &'static ModelInfo,
    handle: *mut c_void,
    inputs: Vec<Bound>,
    outputs: Vec<Bound>,
    tracing: bool,
    _ports: PhantomData<(I, O)>,
}

impl<I: Ports, O: Ports> VerilatedDut<I, O> {
    /// Opens the linked model `name` and binds its ports to the fields of `I` and `O`.
    pub fn new(name: &str) -> Result<Self, HarnessError> {
        let info = model_info(name)?;
        // SAFETY: the ABI functions come from the shim generated for this model by build.rs.
        let handle = unsafe { (info.abi.new)() };
        let mut dut = VerilatedDut { info, handle, inputs: Vec::new(), outputs: Vec::new(), tracing: false, _ports: PhantomData };
        let raw = dut.raw_ports();
        dut.inputs = bind::<I>(info, &raw, false)?;
        dut.outputs = bind::<O>(info, &raw, true)?;
        let clk = raw.iter().filter(|(n, p)| n == "clk" && p.output == 0).count();
        let bound = dut.inputs.len() + dut.outputs.len() + clk;
        if bound != raw.len() {
            let names: Vec<String> = raw.iter().map(|(n, _)| n.clone()).filter(|n| {
                n != "clk" && !I::NAMES.contains(&n.as_str()) && !O::NAMES.contains(&n.as_str())
            }).collect();
            return Err(HarnessError::PortMismatch {
                model: info.name,
                detail: format!("RTL ports with no field in the Rust In/Out structs: {}", names.join(", ")),
            });
        }
        Ok(dut)
    }

    /// The model's static description.
    pub fn info(&self) -> &'static ModelInfo {
        self.info
    }

    /// Width in bits of an RTL port, by name.
    pub fn port_width(&self, name: &str) -> Option<u32> {
        self.raw_ports().into_iter().find(|(n, _)| n == name).map(|(_, p)| p.width)
    }

    fn raw_ports(&self) -> Vec<(String, RawPort)> {
        const MAX_PORTS: usize = 1024;
        let empty = RawPort { name: std::ptr::null(), width: 0, output: 0, data: std::ptr::null_mut() };
        let mut raw = vec![empty; MAX_PORTS];
        // SAFETY: the shim writes at most `cap` entries and returns the total count.
        let n = unsafe { (self.info.abi.ports)(self.handle, raw.as_mut_ptr(), MAX_PORTS) };
        assert!(n <= MAX_PORTS, "{}: {n} ports, more than {MAX_PORTS}", self.info.name);
        raw.truncate(n);
        raw.into_iter()
            // SAFETY: names are string literals in the shim.
            .map(|p| (unsafe { CStr::from_ptr(p.name) }.to_string_lossy().into_owned(), p))
            .collect()
    }

    /// Starts writing an FST waveform of every signal from the current cycle on.
    pub fn start_waveform(&mut self, path: &Path) -> Result<(), HarnessError> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| HarnessError::Waveform {
            path: path.to_path_buf(),
            detail: "path contains a NUL byte".into(),
        })?;
        // SAFETY: handle is live; the shim copies the path.
        let rc = unsafe { (self.info.abi.trace_open)(self.handle, c.as_ptr()) };
        if rc != 0 {
            return Err(HarnessError::Waveform { path: path.to_path_buf(), detail: "the FST writer could not open it".into() });
        }
        self.tracing = true;
        Ok(())
    }

    /// Flushes and closes the waveform, if one is open.
    pub fn stop_waveform(&mut self) {
        if self.tracing {
            // SAFETY: handle is live.
            unsafe { (self.info.abi.trace_close)(self.handle) };
            self.tracing = false;
        }
    }
}

fn bind<P: Ports>(info: &'static ModelInfo, raw: &[(String, RawPort)], output: bool) -> Result<Vec<Bound>, HarnessError> {
    let dir = if output { "output" } else { "input" };
    P::NAMES
        .iter()
        .zip(P::WIDTHS)
        .map(|(name, &capacity)| {
            let (_, p) = raw.iter().find(|(n, _)| n == name).ok_or_else(|| HarnessError::PortMismatch {
                model: info.name,
                detail: format!("the Rust {dir} `{name}` is not an RTL port"),
            })?;
            if (p.output != 0) != output {
                return Err(HarnessError::PortMismatch { model: info.name, detail: format!("`{name}` is not an RTL {dir}") });
            }
            if p.width as usize > capacity {
                return Err(HarnessError::PortMismatch {
                    model: info.name,
                    detail: format!("RTL port `{name}` is {} bits wide; its Rust field holds {capacity}", p.width),
                });
            }
            Ok(Bound { storage: Storage::of(p), width: p.width })
        })
        .collect()
}

struct Writer<'a>(&'a [Bound]);
impl PortVisitor for Writer<'_> {
    #[inline(always)]
    fn visit<S: Signal>(&mut self, index: usize, value: &S) {
        // SAFETY: the bound pointers stay valid while the model lives (we hold &mut to it).
        unsafe { self.0[index].store(value) }
    }
}

struct Reader<'a>(&'a [Bound]);
impl PortFiller for Reader<'_> {
    #[inline(always)]
    fn fill<S: Signal>(&mut self, index: usize) -> S {
        // SAFETY: as for Writer.
        unsafe { self.0[index].load() }
    }
}

impl<I: Ports, O: Ports> Block for VerilatedDut<I, O> {
    type In = I;
    type Out = O;

    fn step(&mut self, inputs: &I) -> O {
        inputs.visit_ports(&mut Writer(&self.inputs));
        // SAFETY: handle is live.
        unsafe { (self.info.abi.eval_low)(self.handle) };
        let out = O::fill_ports(&mut Reader(&self.outputs));
        // SAFETY: handle is live.
        unsafe { (self.info.abi.eval_high)(self.handle) };
        out
    }
}

impl<I: Ports, O: Ports> VerilatedDut<I, O> {
    /// Writes this model's coverage counts to `path` (a coverage build only).
    pub fn write_coverage(&self, path: &Path) -> Result<(), HarnessError> {
        let fail = |detail: &str| HarnessError::Coverage { path: path.to_path_buf(), detail: detail.to_string() };
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| fail("path contains a NUL byte"))?;
        let writer = COVERAGE_WRITERS.iter().find(|(n, _)| *n == self.info.name).map(|(_, w)| *w).ok_or_else(|| fail("no coverage writer linked for this model"))?;
        // SAFETY: handle is live; the shim copies the path.
        match unsafe { writer(self.handle, c.as_ptr()) } {
            0 => Ok(()),
            _ => Err(fail("this binary's models count no coverage: build with `--features coverage`")),
        }
    }
}

impl<I: Ports, O: Ports> Drop for VerilatedDut<I, O> {
    fn drop(&mut self) {
        if let Some(dir) = COVERAGE_DIR.with(|d| d.borrow().clone()) {
            let n = COVERAGE_FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = dir.join(format!("{}-{}-{n}.dat", self.info.name, std::process::id()));
            // A drop cannot return the error: say it, the merge then misses this run.
            if let Err(e) = self.write_coverage(&path) {
                eprintln!("coverage: {e}");
            }
        }
        // SAFETY: handle came from `new` and is deleted once; the shim closes an open waveform.
        unsafe { (self.info.abi.delete)(self.handle) };
    }
}
