//! `verif/regress.rs`.

use inswitch::regress::*;
use inswitch::targets::Target;
use inswitch::targets::TARGETS;
use proptest::prelude::*;

proptest! {
    /// The N shards of any job list are disjoint and together the whole list, and a shard's share
    /// differs from any other's by at most one job.
    #[test]
    fn shards_are_disjoint_complete_and_balanced(targets in 1usize..=TARGETS.len(), seeds in proptest::collection::vec(any::<u64>(), 1..20), count in 1u32..12) {
        let mut unique = seeds.clone();
        unique.sort_unstable();
        unique.dedup();
        let chosen: Vec<&'static Target> = TARGETS.iter().take(targets).collect();
        let all = jobs(&chosen, &unique);
        let mut seen = vec![0u32; all.len()];
        let mut sizes = Vec::new();
        for index in 1..=count {
            let part = shard_jobs(&all, Some(Shard { index, count }));
            sizes.push(part.len());
            for j in &part {
                let at = all.iter().position(|a| a.target.name == j.target.name && a.seed == j.seed).expect("a shard's job is in the list");
                seen[at] += 1;
            }
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "every job in exactly one shard: {seen:?}");
        prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
        // Deterministic: the same split twice.
        let again: Vec<(&str, u64)> = shard_jobs(&all, Some(Shard { index: 1, count })).iter().map(|j| (j.target.name, j.seed)).collect();
        let first: Vec<(&str, u64)> = shard_jobs(&all, Some(Shard { index: 1, count })).iter().map(|j| (j.target.name, j.seed)).collect();
        prop_assert_eq!(again, first);
    }
}

#[test]
fn shard_syntax() {
    assert_eq!("2/8".parse::<Shard>(), Ok(Shard { index: 2, count: 8 }));
    for bad in ["0/2", "3/2", "1/0", "2", "a/b", "1/-1"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
}

#[test]
fn seeds_file_syntax() {
    assert_eq!(parse_seeds("1\n# nightly\n0x5eed_0006  # CI seed\n\n42\n"), Ok(vec![1, 0x5eed_0006, 42]));
    assert!(parse_seeds("1\nseven\n").unwrap_err().contains("line 2"));
    assert!(parse_seeds("# none\n").is_err());
}

#[test]
fn xml_text_escapes_and_drops_control_characters() {
    assert_eq!(xml_text("a<b & \"c\"\u{1b}[0m\n"), "a&lt;b &amp; &quot;c&quot;[0m\n");
}
