//! The one edit envhook makes to a kernel.json, done on its text: the
//! `LD_LIBRARY_PATH` member of its `env` object set (added where missing),
//! everything else left byte for byte as the file had it. A reserialised
//! document would reorder keys and re-escape strings; the text edit keeps
//! what `ipykernel install` (`json.dump(spec, f, indent=1)`) wrote, and the
//! member it adds is laid out the same way (one-space indent, `\uXXXX`
//! escapes), so the edited file reads as ipykernel would have written it.

use std::collections::BTreeMap;

use serde_json::value::RawValue;

/// The variable set in the kernelspec's `env`.
pub const VAR: &str = "LD_LIBRARY_PATH";

/// Where a JSON value lies in the text it was parsed from.
type Span = std::ops::Range<usize>;

/// The members of the JSON object `text` (at offset `base` of the whole
/// document), each with the span of its value; `None` when `text` is not
/// an object.
fn members(doc: &str, base: usize, text: &str) -> Option<BTreeMap<String, Span>> {
    let map: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    Some(
        map.into_iter()
            .map(|(k, raw)| {
                let start = raw.get().as_ptr() as usize - doc.as_ptr() as usize;
                debug_assert!(start >= base);
                (k, start..start + raw.get().len())
            })
            .collect(),
    )
}

/// What the kernelspec's `env` says of [`VAR`] now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Current {
    /// No `env` object.
    NoEnv,
    /// An `env` without the variable.
    Unset,
    /// The variable's value (a template jupyter_client fills in).
    Set(String),
}

/// The kernel.json `text` read: its `env`'s [`VAR`], or why envhook
/// cannot edit it.
pub fn current(text: &str) -> Result<Current, &'static str> {
    Ok(located(text)?.0)
}

/// [`current`], with where to write: the span of the variable's value, or
/// of `env`'s (to add the member), or of the last top-level value (to add
/// `env` after it).
fn located(text: &str) -> Result<(Current, Span), &'static str> {
    let top = members(text, 0, text).ok_or("it is not a JSON object")?;
    let Some(env) = top.get("env") else {
        let last = top.values().map(|s| s.end).max().unwrap_or(0);
        return Ok((Current::NoEnv, last..last));
    };
    let inner =
        members(text, env.start, &text[env.clone()]).ok_or("its \"env\" is not an object")?;
    match inner.get(VAR) {
        None => Ok((Current::Unset, env.clone())),
        Some(span) => match serde_json::from_str::<String>(&text[span.clone()]) {
            Ok(v) => Ok((Current::Set(v), span.clone())),
            Err(_) => Err("its env's LD_LIBRARY_PATH is not a string"),
        },
    }
}

/// `dirs` as a value of the kernelspec's `env`: jupyter_client passes each
/// through `string.Template(v).safe_substitute(os.environ)`, so a `$` of a
/// path is written `$$`. The kernelspec's own value, a template already,
/// follows unchanged; the launching process's `LD_LIBRARY_PATH` is not
/// referenced: where it is unset `${LD_LIBRARY_PATH}` stays in the value
/// as text (a relative directory the loader searches), and where it is
/// empty it leaves an empty element (the current directory).
pub fn value(dirs: &str, own: Option<&str>) -> String {
    let ours = dirs.replace('$', "$$");
    match own {
        // Already first (put there by hand, or by `ipykernel install --env`
        // as `install` advises for a kernelspec outside the prefix).
        Some(v) if v == ours || v.starts_with(&format!("{ours}:")) => v.to_string(),
        Some(v) if !v.is_empty() => format!("{ours}:{v}"),
        _ => ours,
    }
}

/// `text` with its `env`'s [`VAR`] set to `value`, or why it cannot be.
pub fn with_value(text: &str, value: &str) -> Result<String, &'static str> {
    let (current, span) = located(text)?;
    let quoted = string(value);
    let (at, insert) = match current {
        Current::Set(_) => (span, quoted),
        Current::Unset => {
            let env = &text[span.clone()];
            let close = span.start + env.rfind('}').expect("an object ends with }");
            let inner = members(text, span.start, env).unwrap_or_default();
            match inner.values().map(|s| s.end).max() {
                Some(end) => (end..end, format!(",\n  \"{VAR}\": {quoted}")),
                None => (
                    span.start..close + 1,
                    format!("{{\n  \"{VAR}\": {quoted}\n }}"),
                ),
            }
        }
        Current::NoEnv if span.end == 0 => {
            let open = text.find('{').expect("an object starts with {") + 1;
            (
                open..open,
                format!("\n \"env\": {{\n  \"{VAR}\": {quoted}\n }}\n"),
            )
        }
        Current::NoEnv => (span, format!(",\n \"env\": {{\n  \"{VAR}\": {quoted}\n }}")),
    };
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at.start]);
    out.push_str(&insert);
    out.push_str(&text[at.end..]);
    Ok(out)
}

/// A JSON string as Python's `json.dump` writes it (`ensure_ascii`): what
/// ipykernel's kernel.json holds.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `python -m ipykernel install --prefix P` (ipykernel 7.4.0, Python
    /// 3.11), byte for byte: no trailing newline.
    const IPYKERNEL_7_4: &str = "{\n \"argv\": [\n  \"/p/bin/python\",\n  \"-Xfrozen_modules=off\",\n  \"-m\",\n  \"ipykernel_launcher\",\n  \"-f\",\n  \"{connection_file}\"\n ],\n \"display_name\": \"Python 3 (ipykernel)\",\n \"language\": \"python\",\n \"metadata\": {\n  \"debugger\": true,\n  \"supported_encryption\": [\n   \"curve\"\n  ]\n },\n \"kernel_protocol_version\": \"5.5\"\n}";

    #[test]
    fn adds_env_as_ipykernel_writes_it() {
        let out = with_value(IPYKERNEL_7_4, "/p/lib/envhook/cuda").unwrap();
        assert_eq!(
            out,
            IPYKERNEL_7_4.replace(
                "\"5.5\"\n}",
                "\"5.5\",\n \"env\": {\n  \"LD_LIBRARY_PATH\": \"/p/lib/envhook/cuda\"\n }\n}"
            )
        );
        assert_eq!(
            current(&out),
            Ok(Current::Set("/p/lib/envhook/cuda".into()))
        );
    }

    #[test]
    fn keeps_the_users_env_and_value() {
        let with_env = with_value(IPYKERNEL_7_4, "x")
            .unwrap()
            .replace("\"LD_LIBRARY_PATH\": \"x\"", "\"FOO\": \"b\\u00e4r\"");
        let out = with_value(&with_env, "/p/c").unwrap();
        assert!(
            out.contains("\"FOO\": \"b\\u00e4r\",\n  \"LD_LIBRARY_PATH\": \"/p/c\"\n }"),
            "{out}"
        );
        let own = with_value(IPYKERNEL_7_4, "/opt/x:${LD_LIBRARY_PATH}").unwrap();
        let v = value("/p/c", Some("/opt/x:${LD_LIBRARY_PATH}"));
        assert_eq!(v, "/p/c:/opt/x:${LD_LIBRARY_PATH}");
        let out = with_value(&own, &v).unwrap();
        assert_eq!(out, own.replace("\"/opt/x", "\"/p/c:/opt/x"));
        assert_eq!(
            with_value("{\"env\": {}}", "a").unwrap(),
            "{\"env\": {\n  \"LD_LIBRARY_PATH\": \"a\"\n }}"
        );
    }

    #[test]
    fn escapes_as_python_and_template_do() {
        assert_eq!(
            string("a\"b\\c\u{e9}\u{1f600}\n"),
            "\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\n\""
        );
        assert_eq!(value("/o/$HOME/x", None), "/o/$$HOME/x");
        assert_eq!(value("/p/c", Some("/p/c:/q")), "/p/c:/q");
        assert_eq!(value("/p/c", Some("/p/cuda")), "/p/c:/p/cuda");
        assert_eq!(value("/p/c", Some("")), "/p/c");
        assert_eq!(current("[1]"), Err("it is not a JSON object"));
        assert_eq!(current("{\"env\": 3}"), Err("its \"env\" is not an object"));
    }
}
