//! Calibration overlays: values measured on one host (by `bottlenose calibrate`)
//! laid over a base machine.
//!
//! An overlay is a TOML file with a `[calibration]` table naming the base
//! machine and the CPU it was measured on, then `[[set]]` entries (a dotted
//! path into the machine file and its new value) and `[[form]]` entries (an
//! instruction form's measured latency and reciprocal throughput). Every entry
//! carries a note: "measured on <cpu>, <date>, <method>".
//!
//! Settings are applied to the base machine's TOML text before it is parsed,
//! so an overlay value goes through the same validation as a hand-written one;
//! forms are applied to the parsed table (their port groups stay the base's).

use crate::{builtin, schema, Form, Machine, MachineError};
use serde::{Deserialize, Serialize};

/// Where and when an overlay was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationInfo {
    /// The built-in machine the overlay corrects.
    pub base: String,
    /// One-line description of the CPU it was measured on.
    pub cpu: String,
    /// `Vendor-family-model-stepping` of that CPU: an overlay applies to it only.
    pub signature: String,
    pub date: String,
    pub tool: String,
    #[serde(default)]
    pub tsc_ghz: Option<f64>,
    #[serde(default)]
    pub core_ghz: Option<f64>,
}

/// One machine parameter set by the overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setting {
    /// Dotted path: `core.rob`, `memory.dram_latency`, `cache.L2.latency`, `tlb.STLB.miss_latency`.
    pub key: String,
    pub value: f64,
    /// The base machine's value when it was measured (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<f64>,
    pub note: String,
}

/// One instruction form's measured timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormSetting {
    pub form: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<f64>,
    /// Cycles per instruction when independent instances run back to back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rthroughput: Option<f64>,
    pub note: String,
}

/// A calibration overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    pub calibration: CalibrationInfo,
    #[serde(default, rename = "set", skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<Setting>,
    #[serde(default, rename = "form", skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<FormSetting>,
}

impl Overlay {
    /// Whether a TOML text is an overlay (it has a `[calibration]` table) rather than a machine file.
    pub fn is_overlay(text: &str) -> bool {
        text.parse::<toml::Table>().is_ok_and(|t| t.contains_key("calibration"))
    }

    /// Parses an overlay; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Overlay, MachineError> {
        let o: Overlay = toml::from_str(text).map_err(|e| schema::toml_error(file, text, &e))?;
        for (i, s) in o.settings.iter().enumerate() {
            if !s.value.is_finite() {
                return Err(MachineError::Invalid {
                    file: file.into(),
                    line: schema::locate_nth(text, "[[set]]", i, "value"),
                    field: s.key.clone(),
                    message: format!("value must be a finite number, got {}", s.value),
                });
            }
        }
        for (i, f) in o.forms.iter().enumerate() {
            for (what, v) in [("latency", f.latency), ("rthroughput", f.rthroughput)] {
                if v.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                    return Err(MachineError::Invalid {
                        file: file.into(),
                        line: schema::locate_nth(text, "[[form]]", i, what),
                        field: format!("form '{}'.{what}", f.form),
                        message: "must be a finite number >= 0".into(),
                    });
                }
            }
        }
        Ok(o)
    }

    /// The overlay as a TOML document, with a header saying what it is.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("an overlay always serializes");
        format!(
            "# Calibration overlay for `--machine {}` written by `{}`:\n# values measured on {} ({}), {}.\n# Use it with `--machine host` on that CPU (it is found in the cache directory) or `--machine THIS_FILE`.\n\n{body}",
            self.calibration.base, self.calibration.tool, self.calibration.cpu, self.calibration.signature, self.calibration.date
        )
    }

    /// The base machine with this overlay applied; `file` names the overlay in errors.
    pub fn apply(&self, file: &str, overlay_text: &str) -> Result<Machine, MachineError> {
        let b = builtin::builtin(&self.calibration.base).ok_or_else(|| MachineError::Invalid {
            file: file.into(),
            line: schema::locate(overlay_text, "calibration", "base"),
            field: "calibration.base".into(),
            message: format!("'{}' is not a built-in machine", self.calibration.base),
        })?;
        let (name, forms_file, forms) = (b.name, b.forms_file, b.forms);
        let mut doc: toml::Table = b.text.parse().expect("built-in machine files parse");
        // Integer parameters (window sizes, geometry) are rounded; the TOML text
        // alone cannot tell (`latency = 14` is a float parameter written as 14).
        // (the parameter sections alone: the form table need not be parsed for this)
        let sections: toml::Table = ["core", "fusion", "memory", "strings", "cache", "tlb", "branch", "vector"]
            .iter()
            .filter_map(|k| doc.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect();
        let base_params: crate::Params = sections.try_into().expect("built-in machine parameters parse");
        let base_params = serde_json::to_value(&base_params).expect("params serialize");
        for (i, s) in self.settings.iter().enumerate() {
            let known = json_at(&base_params, &s.key);
            let integer = known.is_some_and(|v| v.is_u64());
            let set = match known {
                Some(v) if v.is_number() => set_path(&mut doc, &s.key, s.value, integer),
                Some(v) if v.is_boolean() => set_flag(&mut doc, &s.key, s.value),
                Some(_) => Err("is not a numeric parameter".to_string()),
                None if s.key.split('.').count() != 2 => set_path(&mut doc, &s.key, s.value, integer),
                None => Err(format!("no such parameter in machine '{name}'")),
            };
            set.map_err(|message| MachineError::Invalid {
                file: file.into(),
                line: schema::locate_nth(overlay_text, "[[set]]", i, "key"),
                field: s.key.clone(),
                message,
            })?;
        }
        let patched = toml::to_string(&doc).expect("a table serializes");
        let label = format!("{file} (over machines/{name}.toml)");
        let mut m = schema::parse_machine(&patched, &label, |_| Ok((format!("machines/{forms_file}"), forms.to_string())))?;
        for (i, f) in self.forms.iter().enumerate() {
            apply_form(&mut m, f).map_err(|message| MachineError::Invalid {
                file: file.into(),
                line: schema::locate_nth(overlay_text, "[[form]]", i, "form"),
                field: format!("form '{}'", f.form),
                message,
            })?;
        }
        let c = &self.calibration;
        m.description = format!("{} — calibrated on {} ({}), {}", m.description, c.cpu, c.signature, c.date);
        m.provenance.push(format!("calibration overlay {file}: {} values and {} forms measured on {} ({}), {}", self.settings.len(), self.forms.len(), c.cpu, c.signature, c.date));
        for s in &self.settings {
            m.provenance.push(format!("{} = {}: {}", s.key, fmt_num(s.value), s.note));
        }
        for f in &self.forms {
            m.provenance.push(format!("form '{}': {}", f.form, f.note));
        }
        m.calibration = Some(c.clone());
        Ok(m)
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.3}").trim_end_matches('0').to_string() }
}

/// Sets `key` (dotted; `cache.NAME.field` and `tlb.NAME.field` pick an array
/// entry by its name) to `value`, keeping the existing value's type.
fn set_path(doc: &mut toml::Table, key: &str, value: f64, integer: bool) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    let slot: &mut toml::Value = match parts.as_slice() {
        [array @ ("cache" | "tlb"), entry, field] => {
            let list = doc.get_mut(*array).and_then(|v| v.as_array_mut()).ok_or_else(|| format!("the base machine has no [[{array}]] entries"))?;
            let item = list
                .iter_mut()
                .find(|c| c.get("name").and_then(|n| n.as_str()) == Some(entry))
                .ok_or_else(|| format!("the base machine has no {array} named '{entry}'"))?;
            item.as_table_mut().and_then(|t| t.get_mut(*field)).ok_or_else(|| format!("{array} '{entry}' has no field '{field}'"))?
        }
        ["strings", kind @ ("movs" | "stos" | "lods" | "cmps" | "scas"), field] => {
            let t = doc.entry("strings").or_insert_with(|| toml::Value::Table(Default::default()));
            let t = t.as_table_mut().ok_or("[strings] is not a table")?;
            let k = t.entry(kind.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
            let k = k.as_table_mut().ok_or_else(|| format!("strings.{kind} is not a table"))?;
            k.entry(field.to_string()).or_insert(toml::Value::Float(value))
        }
        [table @ ("core" | "memory" | "branch" | "vector" | "fusion" | "strings"), field] => {
            let t = doc.entry(table.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
            let t = t.as_table_mut().ok_or_else(|| format!("[{table}] is not a table"))?;
            // A field the base leaves at its default is added with the type of the value.
            t.entry(field.to_string()).or_insert(toml::Value::Float(value))
        }
        _ => return Err("not a settable parameter (expected core.X, memory.X, branch.X, vector.X, fusion.X, strings.X, strings.KIND.X, cache.NAME.X or tlb.NAME.X)".into()),
    };
    *slot = match slot {
        toml::Value::Integer(_) | toml::Value::Float(_) if integer => {
            if value < 0.0 {
                return Err(format!("must be a non-negative integer, got {value}"));
            }
            toml::Value::Integer(value.round() as i64)
        }
        toml::Value::Integer(_) | toml::Value::Float(_) => toml::Value::Float(value),
        other => return Err(format!("is a {} in the machine file, not a number", other.type_str())),
    };
    Ok(())
}

/// Sets a true/false parameter of a top-level table (`memory.memory_renaming`): an overlay
/// value is a number, 1 for true and 0 for false.
fn set_flag(doc: &mut toml::Table, key: &str, value: f64) -> Result<(), String> {
    let on = match value {
        1.0 => true,
        0.0 => false,
        _ => return Err(format!("is a true/false parameter: 1 or 0, got {value}")),
    };
    let [table, field] = key.split('.').collect::<Vec<_>>()[..] else { return Err("not a settable true/false parameter".into()) };
    let t = doc.entry(table.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
    let t = t.as_table_mut().ok_or_else(|| format!("[{table}] is not a table"))?;
    t.insert(field.to_string(), toml::Value::Boolean(on));
    Ok(())
}

/// The value at an overlay key in the serialized parameters.
pub(crate) fn json_at<'a>(params: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    match key.split('.').collect::<Vec<_>>().as_slice() {
        [array @ ("cache" | "tlb"), entry, field] => {
            params.get(*array)?.as_array()?.iter().find(|c| c.get("name").and_then(|n| n.as_str()) == Some(entry))?.get(*field)
        }
        [table, field] => params.get(*table)?.get(*field),
        ["strings", kind, field] => params.get("strings")?.get(*kind)?.get(*field),
        _ => None,
    }
}

/// Replaces a form's latency, and scales its port uses so that its throughput
/// bound ([`Machine::rthroughput_bound`]) equals the measured one.
fn apply_form(m: &mut Machine, f: &FormSetting) -> Result<(), String> {
    let base = m.forms.get(&f.form).cloned().unwrap_or_else(|| Form { ..m.default_form.clone() });
    let mut form = base;
    if let Some(l) = f.latency {
        form.latency = l;
    }
    if let Some(rt) = f.rthroughput {
        let bound = m.rthroughput_bound(&form.uses).unwrap_or(0.0);
        if bound <= 0.0 {
            return Err("has no port uses to scale to the measured throughput".into());
        }
        if rt <= 0.0 {
            return Err("rthroughput must be > 0".into());
        }
        let scale = rt / bound;
        for u in &mut form.uses {
            u.1 *= scale;
        }
    }
    m.forms.insert(f.form.clone(), form);
    Ok(())
}
