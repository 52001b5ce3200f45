//! `verif/cross.rs`.

use inswitch::cross::*;
use serde_json::json;

const AB: &[&str] = &["a", "b"];
const XYZ: &[&str] = &["x", "y", "z"];

#[test]
fn bins_holes_exclusions_and_merge() {
    let make = || Cross::new("t", &[("p", AB), ("q", XYZ)], |i| (i == [1, 2]).then_some("b never meets z"));
    let mut c = make();
    assert_eq!((c.bins(), c.excluded_count()), (6, 1));
    c.hit(&[0, 0]);
    c.hit(&[0, 0]);
    c.hit(&[1, 1]);
    assert_eq!(c.count(&[0, 0]), 2);
    assert_eq!(c.hit_count(), 2);
    assert_eq!(c.holes(), vec![vec![0, 1], vec![0, 2], vec![1, 0]]);
    assert_eq!(c.holes_where(|i| i[0] == 1), vec![vec![1, 0]]);
    assert_eq!(c.below(2, |_| true).len(), 4);
    assert!(c.excluded_hits().is_empty());
    let mut d = make();
    d.hit(&[1, 2]);
    d.hit(&[0, 1]);
    let m = Cross::merge_all([&c, &d]);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].holes(), vec![vec![0, 2], vec![1, 0]]);
    assert_eq!(m[0].excluded_hits(), vec![(vec![1, 2], 1, "b never meets z")]);
    let text = m[0].report(true);
    assert!(text.contains("cross t: p(2) x q(3): 6 bins, 1 unreachable by construction, 3 of 5 reachable hit, 2 holes"), "{text}");
    assert!(text.contains("EXCLUDED BUT HIT 1 times: p=b x q=z"), "{text}");
    assert!(text.contains("hole: p=a x q=z"), "{text}");
    let j = m[0].to_json();
    assert_eq!(j["holes"][0], json!(["a", "z"]));
    assert_eq!(j["unreachable"], json!(1));
}
