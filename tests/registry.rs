//! The block registry (crates/model/src/registry) against the Verilated RTL: for every linked model,
//! the registry's port table at the model's parameters is exactly Verilator's (names, directions,
//! widths), and every registered block has a cosim bench and every cosim target a registered block.

use inswitch::model_table::MODELS;
use inswitch::targets::{model_params, COSIM, TARGETS};
use inswitch::verilated::rtl_port_list;
use inswitch_model::registry;

#[test]
fn registry_port_tables_match_verilator_for_every_linked_model() {
    for m in MODELS {
        let spec = registry::block(m.top).unwrap();
        let params = model_params(m.name).unwrap();
        let mut want: Vec<(String, u32, bool)> = spec.rtl_ports(&params).into_iter().map(|p| (p.name.to_string(), p.width, p.output)).collect();
        let mut have = rtl_port_list(m.name).unwrap();
        want.sort();
        have.sort();
        assert_eq!(want, have, "model {} ({})", m.name, params);
        // The model's ports are the RTL's without clk.
        assert_eq!(spec.ports(&params).len() + 1, have.len(), "model {}", m.name);
    }
}

#[test]
fn every_block_has_a_cosim_bench_and_every_target_a_block() {
    for b in registry::blocks() {
        assert!(COSIM.iter().any(|(n, _)| *n == b.name), "block {} has no cosim bench", b.name);
        assert!(TARGETS.iter().any(|t| t.block == b.name), "block {} has no cosim target", b.name);
    }
    for t in TARGETS.iter() {
        registry::block(t.block).unwrap();
    }
    assert_eq!(TARGETS.iter().find(|t| t.name == "output_queue_w64").unwrap().width, Some(64));
    assert_eq!(TARGETS.iter().find(|t| t.name == "cpu").unwrap().width, None);
}

/// docs/architecture.md §Blocks side by side: every registered block has a model file named as it
/// (`<block>.rs` or `<block>/mod.rs`), `rtl/<block>.v`, `docs/blocks/<block>.md` with the common sections in
/// order, a cosim bench and lockstep tests, and the table has exactly one row per block, naming those paths.
#[test]
fn every_block_has_its_model_rtl_document_and_bench_by_name_and_architecture_lists_them() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let module_file = |dir: &str, b: &str| -> String {
        let candidates = [format!("{dir}/{b}.rs"), format!("{dir}/{b}/mod.rs")];
        candidates.iter().find(|p| root.join(p).is_file()).cloned().unwrap_or_else(|| panic!("block {b}: neither {} nor {} exists", candidates[0], candidates[1]))
    };
    let arch = std::fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let section = arch.split("\n## Blocks side by side\n").nth(1).expect("docs/architecture.md has a section `## Blocks side by side`");
    let section = section.split("\n## ").next().unwrap();
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    for b in registry::blocks() {
        let b = b.name;
        let model = module_file("crates/model/src", b);
        let bench = module_file("verif/blocks", b);
        let (rtl, doc, tests) = (format!("rtl/{b}.v"), format!("docs/blocks/{b}.md"), format!("tests/cosim_{b}.rs"));
        for p in [&rtl, &doc, &tests] {
            assert!(root.join(p).is_file(), "block {b}: {p} is missing");
        }
        let text = std::fs::read_to_string(root.join(&doc)).unwrap();
        let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
        let mut at = 0;
        for want in ["## Parameters", "## Ports", "## Behaviour", "## Timing", "## Verification"] {
            let found = headings[at..].iter().position(|h| h.starts_with(want));
            at += found.unwrap_or_else(|| panic!("{doc}: no `{want}` section after {:?} (sections: {headings:?})", headings.get(at.max(1) - 1))) + 1;
        }
        let row = format!("| `{b}` | `{model}` | `{rtl}` | `{doc}` | `{bench}` |");
        assert!(table.contains(&row.as_str()), "docs/architecture.md §Blocks side by side lacks the row\n{row}");
    }
    assert_eq!(table.len(), registry::blocks().len(), "docs/architecture.md §Blocks side by side: one row per registered block, no other: {table:#?}");
}

/// Every `docs/<name>.md` the tree names (sources, RTL, scripts, docs) exists, and every `§Section` written
/// right after it is a heading of that document (by its first word or number), so a moved document or a
/// renamed section leaves no dangling reference behind.
#[test]
fn every_document_reference_names_an_existing_document_and_section() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("build.rs")];
    let mut dirs: Vec<std::path::PathBuf> =
        ["src", "verif", "tests", "crates", "rtl", "docs", "scripts", "benches", "fuzz", "tools", ".github", ".ci"].iter().map(|d| root.join(d)).collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let (path, name) = (e.path(), e.file_name().to_string_lossy().into_owned());
            if path.is_dir() {
                // Build outputs, virtual environments, fuzz corpora: not sources.
                if !["target", "seeds", "corpus", "artifacts", "__pycache__", ".venv", "fixtures"].contains(&name.as_str()) {
                    dirs.push(path);
                }
            } else {
                files.push(path);
            }
        }
    }
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_/.-".contains(c);
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut headings: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut bad = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let rel = f.strip_prefix(root).unwrap().display().to_string();
        for (at, _) in text.match_indices("docs/") {
            let rest = &text[at..];
            let run: String = rest.chars().take_while(|&c| path_char(c)).collect();
            let doc = run.trim_end_matches('.');
            if !doc.ends_with(".md") {
                continue;
            }
            let Ok(body) = std::fs::read_to_string(root.join(doc)) else {
                bad.push(format!("{rel}: {doc} does not exist"));
                continue;
            };
            let heads = headings.entry(doc.to_string()).or_insert_with(|| {
                body.lines().filter(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim().to_string()).collect()
            });
            let after = rest[doc.len()..].trim_start_matches('`').trim_start_matches(',');
            let Some(section) = after.strip_prefix(" §") else { continue };
            let name: String = section.trim_start().chars().take_while(|&c| word_char(c) || c == '.').collect();
            let name = name.trim_end_matches('.');
            let found = heads.iter().any(|h| {
                h.strip_prefix(name).is_some_and(|tail| tail.is_empty() || tail.starts_with('.') || !tail.starts_with(word_char))
            });
            if !found {
                bad.push(format!("{rel}: {doc} has no section §{name}"));
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "dangling document references:\n{}", bad.join("\n"));
}
