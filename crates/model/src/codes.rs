//! Codes shared by the Rust model and the RTL, written once: [`code_table!`](crate::code_table) declares a
//! set of codes as Rust constants together with the table the RTL headers are generated from
//! ([`localparams`]), and `check_generated` is the unit test's check that a checked-in header is the
//! generated one (`INSWITCH_BLESS=1` rewrites it). Users: the CPU (`cpu::codes`, `rtl/cpu_codes.vh`) and
//! the input checker (`input_checker::codes`, `rtl/input_checker_codes.vh`).

/// One code set: a module of constants (`u8` unless `as <type>` says otherwise), its table for the RTL
/// header and the names.
#[macro_export]
#[doc(hidden)]
macro_rules! code_table {
    (
        $(#[$m:meta])*
        $vis:vis mod $module:ident: $prefix:literal, $bits:literal bits {
            $($body:tt)*
        }
        $($extra:item)*
    ) => {
        $crate::code_table! {
            $(#[$m])*
            $vis mod $module: $prefix, $bits bits as u8 {
                $($body)*
            }
            $($extra)*
        }
    };
    (
        $(#[$m:meta])*
        $vis:vis mod $module:ident: $prefix:literal, $bits:literal bits as $ty:ty {
            $($name:ident = $v:literal, $doc:literal;)*
        }
        $($extra:item)*
    ) => {
        $(#[$m])*
        $vis mod $module {
            $(#[doc = $doc] pub const $name: $ty = $v;)*
            /// The set as one table: `(NAME, value)`, in the order written.
            pub const TABLE: &[(&str, $ty)] = &[$((stringify!($name), $v)),*];
            /// The RTL localparams' name prefix (`<PREFIX>_<NAME>`).
            pub const RTL_PREFIX: &str = $prefix;
            /// The width of the RTL localparams (the port or register the code travels on).
            pub const BITS: u32 = $bits;
            /// The code's name (`"NONE"` for a value the set does not name).
            pub fn name(code: $ty) -> &'static str {
                match code { $($v => stringify!($name),)* _ => "NONE" }
            }
            /// The set's lines of an RTL header (`localparam [BITS-1:0] <PREFIX>_<NAME> = BITS'd<v>;`).
            pub fn localparams() -> String {
                $crate::codes::localparams($prefix, $bits, TABLE.iter().map(|&(n, v)| (n, u64::from(v))))
            }
            $($extra)*
        }
    };
}

/// A generated RTL header being written: its banner, then sections of localparams.
pub struct Header(String);

impl Header {
    /// A header starting with `banner`, one comment line an item (what it is, where it is generated
    /// from, the command that regenerates it).
    pub fn new(banner: &[&str]) -> Header {
        let mut h = Header(String::new());
        banner.iter().for_each(|l| h.line(l));
        h
    }

    /// One line of text.
    pub fn line(&mut self, t: &str) {
        self.0.push_str(t);
        self.0.push('\n');
    }

    /// A section: a comment naming it, then its lines (each ending in a newline).
    pub fn section(&mut self, what: &str, lines: &str) {
        self.line(&format!("// {what}"));
        self.0.push_str(lines);
    }

    /// The header's text.
    pub fn text(self) -> String {
        self.0
    }
}

/// The lines `localparam [bits-1:0] <prefix>_<NAME> = <bits>'d<v>;` of one table, in order.
pub fn localparams<'a>(prefix: &str, bits: u32, table: impl IntoIterator<Item = (&'a str, u64)>) -> String {
    let mut s = String::new();
    for (name, v) in table {
        assert!(bits >= 64 || v < 1 << bits, "{prefix}_{name} = {v} does not fit {bits} bits");
        s.push_str(&format!("localparam [{}:0] {prefix}_{name} = {bits}'d{v};\n", bits - 1));
    }
    s
}

/// Checks that the checked-in header `rtl/<file>` (from the model crate's manifest directory) is `want`;
/// with `INSWITCH_BLESS` set, writes it first. Panics with the command that regenerates it (`test` is
/// the unit test's name filter).
#[cfg(test)]
pub(crate) fn check_generated(file: &str, want: &str, test: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rtl").join(file);
    if std::env::var_os("INSWITCH_BLESS").is_some() {
        std::fs::write(&path, want).unwrap_or_else(|e| panic!("write rtl/{file}: {e}"));
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "rtl/{file} is out of date with the model's code tables: run \
         `INSWITCH_BLESS=1 cargo test --release -p inswitch-model {test}` and commit the result"
    );
}
