//! The processes of a run that started others (and what was not traced): the
//! page's other sections detail one of them, and this says which.

use super::{esc, num};
use serde_json::Value;
use std::fmt::Write;

pub fn processes(o: &mut String, r: &Value) {
    let rows = r["processes"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let untraced = r["untraced"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    if rows.len() < 2 && untraced.is_empty() {
        return;
    }
    o.push_str("<section id=\"processes\"><h2>Processes</h2>");
    if rows.len() >= 2 {
        let t = &r["total"];
        let detailed = rows.iter().find(|p| p["detailed"] == Value::Bool(true));
        let _ = write!(
            o,
            "<p>{} processes traced: {} instructions, {} cycles in total (IPC {:.2}). {}</p>",
            rows.len(),
            crate::numbers::cycles(num(&t["instructions_simulated"])),
            crate::numbers::cycles(num(&t["cycles"])),
            num(&t["ipc"]),
            match detailed {
                Some(p) => format!(
                    "The other sections of this page are process {} ({}), marked *, the one with the most cycles; the others are counted in this table and the totals only.",
                    p["pid"],
                    esc(p["program"].as_str().unwrap_or("?"))
                ),
                None => "The other sections of this page are the first process's.".into(),
            }
        );
        o.push_str("<table><thead><tr><th></th><th>pid</th><th>parent</th><th class=\"l\">how</th><th class=\"l\">program</th><th>instructions</th><th>cycles</th><th>IPC</th><th class=\"l\">exit</th></tr></thead><tbody>");
        for p in rows {
            let _ = write!(
                o,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td class=\"l\">{}</td></tr>",
                if p["detailed"] == Value::Bool(true) { "*" } else { "" },
                p["pid"],
                p["parent"].as_u64().map_or("-".to_string(), |x| x.to_string()),
                esc(p["origin"].as_str().unwrap_or("")),
                esc(p["program"].as_str().unwrap_or("")),
                crate::numbers::cycles(num(&p["instructions_simulated"])),
                crate::numbers::cycles(num(&p["cycles"])),
                num(&p["ipc"]),
                esc(p["exit"].as_str().unwrap_or(""))
            );
        }
        o.push_str("</tbody></table>");
    }
    for u in untraced {
        let _ = write!(o, "<p class=\"muted\">Not traced: {}</p>", esc(u.as_str().unwrap_or("")));
    }
    o.push_str("</section>\n");
}
