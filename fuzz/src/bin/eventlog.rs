//! The eventlog reader and the summary: any bytes as an eventlog.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(log) = gclab_eventlog_tools::reader::parse(data) {
            let d = gclab_eventlog_tools::summary::derive(&log, None, None);
            let _ = gclab_eventlog_tools::summary::summary_text(&d, std::path::Path::new("fuzz.eventlog"));
        }
    });
}
