//! The eventlog reader and the summary: any bytes as an eventlog.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(log) = gclab::eventlog_reader::parse(data) {
            let d = gclab::eventlog_report::derive(&log, None, None);
            let _ = gclab::eventlog_report::summary_text(&d, std::path::Path::new("fuzz.eventlog"));
        }
    });
}
