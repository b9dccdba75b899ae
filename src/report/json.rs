//! Every command's `--json`: the report's own serde form, pretty-printed,
//! one document and a newline.

use std::io::{self, Write};

use crate::error::Error;

/// Write JSON followed by a newline.
pub fn write<T: serde::Serialize>(out: &mut impl Write, value: &T) -> Result<(), Error> {
    serde_json::to_writer_pretty(&mut *out, value)
        .map_err(|e| Error::Output(io::Error::from(e)))?;
    writeln!(out).map_err(Error::Output)
}
