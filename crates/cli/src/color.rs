//! Terminal colour for the text views: headings bold, the top bottleneck and
//! the Top-Down bottleneck path red, flagged nodes and warnings yellow.
//! Off with `--no-color`, when `NO_COLOR` is set, or when the text does not go to a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

static DISABLED: AtomicBool = AtomicBool::new(false);

pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// Whether text bound for a destination that is (or is not) a terminal gets colour.
pub fn enabled_on(terminal: bool) -> bool {
    !DISABLED.load(Ordering::Relaxed) && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && terminal
}

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// Styles a rendered text report for stdout (no-op when colour is off).
pub fn paint(text: &str) -> String {
    paint_on(text, std::io::stdout().is_terminal())
}

/// Styles a rendered text report bound for a terminal or not.
pub fn paint_on(text: &str, terminal: bool) -> String {
    if !enabled_on(terminal) {
        return text.to_string();
    }
    style(text)
}

fn style(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut in_bottlenecks = false;
    let mut first_bottleneck = true;
    for line in text.lines() {
        let heading = !line.starts_with(' ') && !line.is_empty();
        if heading {
            in_bottlenecks = line.starts_with("Bottlenecks");
        }
        let styled = if heading {
            Some(BOLD)
        } else if line.contains("<==") {
            Some(RED)
        } else if in_bottlenecks && first_bottleneck && !line.trim().is_empty() {
            first_bottleneck = false;
            Some(RED)
        } else if line.trim_start().starts_with("warning") || line.trim_end().ends_with(" *") {
            Some(YELLOW)
        } else {
            None
        };
        match styled {
            Some(s) => {
                out.push_str(s);
                out.push_str(line);
                out.push_str(RESET);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::style;
    #[test]
    fn headings_bottleneck_and_path_are_styled() {
        let s = style("Bottlenecks (x):\n  p23   +14%\n  p4    +1%\nTop-Down\n  Backend  50%  <== bottleneck\n  Retiring 40%  *\n");
        assert!(s.starts_with("\x1b[1mBottlenecks"));
        assert!(s.contains("\x1b[1;31m  p23   +14%\x1b[0m"));
        assert!(s.contains("\n  p4    +1%\n"), "only the top bottleneck is red");
        assert!(s.contains("\x1b[1;31m  Backend"));
        assert!(s.contains("\x1b[33m  Retiring"));
    }
}
