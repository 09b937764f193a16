//! `gclab hp FILE.hp [--out PREFIX]`: a heap profile drawn as hp2ps
//! would, to `PREFIX.svg` and `PREFIX.png` (default: beside the file, its
//! name without `.hp`; `--out DIR/` puts them in `DIR`).

use super::output::out;
use gclab_core::output::{not_an_input, prefix_in};
use std::io::Write;
use std::path::Path;

/// Draw `file`; a profile with no data is drawn but warned about.
pub(super) fn hp(file: &Path, given: Option<&Path>) -> Result<(), String> {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "heap".into());
    let prefix = given.map_or_else(|| file.with_file_name(&stem), |given| prefix_in(given, &stem));
    for ext in ["svg", "png"] {
        not_an_input(&prefix.with_extension(ext), &[file])?;
    }
    let drawn = gclab_eventlog_tools::hp_plot::plot(file, &prefix)?;
    if let Some(warning) = &drawn.warning {
        let _ = writeln!(std::io::stderr(), "gclab: warning: {warning}");
    }
    drawn.files.iter().try_for_each(|f| out(format!("Plot: {}\n", f.display())))
}
