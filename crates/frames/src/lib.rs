//! Frame codecs (issue 3). Placeholder crate root: the codecs land here.
