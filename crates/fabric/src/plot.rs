//! Plots (SVG, `plotters`): latency versus end nodes for monolithic and distributed engines. PNG would
//! need plotters' bitmap backend and its image crates, which this workspace does not carry.

use std::path::Path;

use plotters::prelude::*;

use crate::scenario::{Mode, RunResult};
use crate::setup::Arrangement;

/// A quantity of a run, ps.
type Metric = fn(&RunResult) -> u64;

/// Writes two panels (command to all end nodes; all-reduce = responses in and result to all) against
/// the number of end nodes, one series per arrangement and mode present in `runs`.
pub fn latency_vs_endpoints(path: &Path, runs: &[RunResult]) -> Result<(), String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let root = SVGBackend::new(path, (1200, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let panels = root.split_evenly((1, 2));
    let series: Vec<(Arrangement, Mode, RGBColor)> = vec![
        (Arrangement::Monolithic, Mode::Serialization, RED),
        (Arrangement::Distributed, Mode::Serialization, BLUE),
        (Arrangement::Monolithic, Mode::Realistic, MAGENTA),
        (Arrangement::Distributed, Mode::Realistic, CYAN),
    ];
    let metrics: [(&str, Metric); 2] =
        [("command to all end nodes", |r| r.command_to_all_ps), ("all-reduce: responses in, result to all", |r| r.result_to_all_ps)];
    for (panel, (title, get)) in panels.iter().zip(metrics) {
        let ok: Vec<&RunResult> = runs.iter().filter(|r| r.error.is_none()).collect();
        let xmax = ok.iter().map(|r| r.participants + 1).max().unwrap_or(2) as f64;
        let ymax = ok.iter().map(|r| get(r) as f64 / 1e6).fold(0.001, f64::max);
        let mut chart = ChartBuilder::on(panel)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((16f64..xmax * 1.2).log_scale(), (ymax / 2000.0..ymax * 1.5).log_scale())
            .map_err(|x| e(&x))?;
        chart.configure_mesh().x_desc("end nodes").y_desc("microseconds").draw().map_err(|x| e(&x))?;
        for &(a, m, color) in &series {
            let pts: Vec<(f64, f64)> = ok
                .iter()
                .filter(|r| r.arrangement == Some(a) && r.mode == Some(m))
                .map(|r| ((r.participants + 1) as f64, (get(r) as f64 / 1e6).max(ymax / 2000.0)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|x| e(&x))?
                .label(format!("{a:?} ({m:?})"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|x| e(&x))?;
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(|x| e(&x))?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(())
}
