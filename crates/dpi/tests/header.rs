//! The checked-in C header is what cbindgen generates from the code.

use std::path::PathBuf;

#[test]
fn header_is_current() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut out);
    let want = String::from_utf8(out).expect("utf-8 header");
    let path = dir.join("include/inswitch_dpi.h");
    if std::env::var_os("INSWITCH_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write header");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "crates/dpi/include/inswitch_dpi.h is out of date: run `INSWITCH_BLESS=1 cargo test --release -p inswitch-dpi --test header` and commit it"
    );
}

#[test]
fn generated_systemverilog_is_current() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sv");
    let bless = std::env::var_os("INSWITCH_BLESS").is_some();
    for (name, text) in inswitch_dpi::sv::files() {
        let path = dir.join(&name);
        if bless {
            std::fs::create_dir_all(&dir).expect("create sv/");
            std::fs::write(&path, &text).expect("write sv");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == text, "crates/dpi/sv/{name} is out of date: run `cargo run --release -- sv-models` and commit it");
    }
}
