//! Plots (`plotters`): latency versus end nodes for monolithic and distributed engines, as SVG or PNG by
//! the file's extension. Text is laid out (both formats) and rasterised (PNG) with `ab_glyph` from a
//! font loaded at run time: [`FONT_PATH`] from the Debian package [`FONT_PACKAGE`], which
//! `scripts/setup` installs.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::goodput::GoodputRow;
use crate::scenario::{Mode, RunResult};
use crate::setup::Arrangement;

/// The font the plots use (registered as plotters' `sans-serif`).
pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
/// The Debian package that ships [`FONT_PATH`].
pub const FONT_PACKAGE: &str = "fonts-dejavu-core";
/// Plot size in pixels (SVG user units): two panels side by side.
pub const PLOT_SIZE: (u32, u32) = (1200, 500);

/// Why a plot was not written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The extension is neither `.svg` nor `.png`.
    #[error("{0}: the plot format is chosen by the extension, .svg or .png")]
    Format(PathBuf),
    /// The font file could not be read.
    #[error("font {path}: {source}; install the Debian package {package} (scripts/setup does)", path = .path.display(), package = FONT_PACKAGE)]
    FontMissing {
        /// The font file.
        path: PathBuf,
        /// The read error.
        source: std::io::Error,
    },
    /// The font file is not a font `ab_glyph` reads.
    #[error("font {}: not an OpenType/TrueType font (package {FONT_PACKAGE})", .0.display())]
    FontInvalid(PathBuf),
    /// Drawing or writing the file failed.
    #[error("drawing: {0}")]
    Draw(String),
}

/// A plot file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotFormat {
    /// Scalable vector graphics.
    Svg,
    /// Portable network graphics (a bitmap of [`PLOT_SIZE`]).
    Png,
}

impl PlotFormat {
    /// The format of `path`, by its extension (case-insensitive).
    pub fn of(path: &Path) -> Result<PlotFormat, PlotError> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => Ok(PlotFormat::Svg),
            Some("png") => Ok(PlotFormat::Png),
            _ => Err(PlotError::Format(path.to_path_buf())),
        }
    }
}

/// The font file registered as `sans-serif` so far (plotters keeps fonts for the process).
static REGISTERED: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Registers the font at `path` as plotters' `sans-serif`, once per process and path. Plotters wants
/// the font's bytes for the whole process (`&'static`), so they are leaked, once per registered path.
pub fn use_font(path: &Path) -> Result<(), PlotError> {
    let mut done = REGISTERED.lock().unwrap_or_else(|p| p.into_inner());
    if done.as_deref() == Some(path) {
        return Ok(());
    }
    let bytes = std::fs::read(path).map_err(|source| PlotError::FontMissing { path: path.to_path_buf(), source })?;
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| PlotError::FontInvalid(path.to_path_buf()))?;
    *done = Some(path.to_path_buf());
    Ok(())
}

/// A quantity of a run, ps.
type Metric = fn(&RunResult) -> u64;

/// Writes two panels (command to all end nodes; all-reduce = responses in and result to all) against
/// the number of end nodes, one series per arrangement and mode present in `runs`, as SVG or PNG by the
/// extension of `path`.
pub fn latency_vs_endpoints(path: &Path, runs: &[RunResult]) -> Result<(), PlotError> {
    let format = PlotFormat::of(path)?;
    use_font(Path::new(FONT_PATH))?;
    match format {
        PlotFormat::Svg => draw(SVGBackend::new(path, PLOT_SIZE).into_drawing_area(), runs),
        PlotFormat::Png => draw(BitMapBackend::new(path, PLOT_SIZE).into_drawing_area(), runs),
    }
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, runs: &[RunResult]) -> Result<(), PlotError> {
    let e = |x: &dyn std::fmt::Display| PlotError::Draw(x.to_string());
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

/// Writes the goodput sweep (issue 20, [`crate::goodput`]) as two panels against the drop rate: the
/// success rate of each class, and the median and p99 time to complete of its successful reductions
/// (the fault-free run at drop 0 is the reference, drawn at the left edge), SVG or PNG by the extension.
pub fn goodput_vs_drop(path: &Path, base: &GoodputRow, rows: &[GoodputRow]) -> Result<(), PlotError> {
    let format = PlotFormat::of(path)?;
    use_font(Path::new(FONT_PATH))?;
    match format {
        PlotFormat::Svg => draw_goodput(SVGBackend::new(path, PLOT_SIZE).into_drawing_area(), base, rows),
        PlotFormat::Png => draw_goodput(BitMapBackend::new(path, PLOT_SIZE).into_drawing_area(), base, rows),
    }
}

fn draw_goodput<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, base: &GoodputRow, rows: &[GoodputRow]) -> Result<(), PlotError> {
    let e = |x: &dyn std::fmt::Display| PlotError::Draw(x.to_string());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let panels = root.split_evenly((1, 2));
    let all: Vec<&GoodputRow> = std::iter::once(base).chain(rows).collect();
    let xmax = all.iter().map(|r| r.drop * 100.0).fold(0.1, f64::max) * 1.05;
    let colors = [BLUE, RED, GREEN, MAGENTA];
    // Success rate per class.
    let ymin = all.iter().flat_map(|r| r.classes().map(|(_, c)| c.rate() * 100.0)).fold(100.0, f64::min).min(90.0).floor();
    let mut chart = ChartBuilder::on(&panels[0])
        .caption("success rate at the root", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..xmax, ymin..100.5)
        .map_err(|x| e(&x))?;
    chart.configure_mesh().x_desc("drop rate per frame per link, %").y_desc("success, %").draw().map_err(|x| e(&x))?;
    for (k, color) in colors.iter().enumerate() {
        let name = base.classes()[k].0;
        let pts: Vec<(f64, f64)> = all.iter().filter(|r| r.classes()[k].1.n > 0).map(|r| (r.drop * 100.0, r.classes()[k].1.rate() * 100.0)).collect();
        let color = *color;
        chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2))).map_err(|x| e(&x))?.label(name).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|x| e(&x))?;
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(|x| e(&x))?;
    // Time to complete of the successful reductions: median (solid) and p99 (thin).
    let ymax = all.iter().flat_map(|r| r.classes().map(|(_, c)| c.p99_ps as f64 / 1e6)).fold(0.1, f64::max) * 1.2;
    let mut chart = ChartBuilder::on(&panels[1])
        .caption("time to complete a successful reduction (median, p99)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(|x| e(&x))?;
    chart.configure_mesh().x_desc("drop rate per frame per link, %").y_desc("microseconds").draw().map_err(|x| e(&x))?;
    for (k, color) in colors.iter().enumerate() {
        let name = base.classes()[k].0;
        let color = *color;
        let series = |get: fn(&crate::goodput::ClassStats) -> u64| -> Vec<(f64, f64)> {
            all.iter().filter(|r| r.classes()[k].1.success > 0).map(|r| (r.drop * 100.0, get(r.classes()[k].1) as f64 / 1e6)).collect()
        };
        let median = series(|c| c.median_ps);
        chart.draw_series(LineSeries::new(median.clone(), color.stroke_width(2))).map_err(|x| e(&x))?.label(format!("{name} median")).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(median.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|x| e(&x))?;
        chart.draw_series(LineSeries::new(series(|c| c.p99_ps), color.stroke_width(1))).map_err(|x| e(&x))?.label(format!("{name} p99")).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_chosen_by_the_extension() {
        assert_eq!(PlotFormat::of(Path::new("a/b.svg")).unwrap(), PlotFormat::Svg);
        assert_eq!(PlotFormat::of(Path::new("b.PNG")).unwrap(), PlotFormat::Png);
        for bad in ["b.jpg", "b", "b.svg.txt"] {
            assert!(matches!(PlotFormat::of(Path::new(bad)), Err(PlotError::Format(_))), "{bad}");
        }
    }

    #[test]
    fn a_missing_font_names_the_package() {
        let e = use_font(Path::new("/nonexistent/DejaVuSans.ttf")).unwrap_err();
        assert!(matches!(e, PlotError::FontMissing { .. }), "{e:?}");
        assert!(e.to_string().contains(FONT_PACKAGE), "{e}");
        let not_a_font = std::env::temp_dir().join(format!("inswitch-not-a-font-{}.ttf", std::process::id()));
        std::fs::write(&not_a_font, b"not a font").unwrap();
        let e = use_font(&not_a_font).unwrap_err();
        std::fs::remove_file(&not_a_font).ok();
        assert!(matches!(e, PlotError::FontInvalid(_)), "{e:?}");
    }
}
