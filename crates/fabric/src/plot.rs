//! Plots (SVG, `plotters`): latency versus endpoints for monolithic and distributed engines.
