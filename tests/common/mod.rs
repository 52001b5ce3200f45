pub mod sv;
