//! Reading constants out of the small generated Python files frameworks
//! ship to describe their build, without running Python:
//!
//! * `torch/version.py`: `cuda: Optional[str] = '12.1'`
//! * `paddle/version/__init__.py`: `cuda_version = '11.8'`
//! * `tensorflow/python/platform/build_info.py`:
//!   `build_info = {'cuda_version': '12.3', ...}`,
//!   `build_info = collections.OrderedDict([('cuda_version', '12.3'), ...])`
//!   or `build_info['cuda_version'] = '12.3'` (the generator changed over
//!   releases; all three are read)
//! * `onnxruntime/capi/build_and_package_info.py`: `cuda_version = '12.2'`
//!
//! Only literal values are understood; anything computed is `Other`.

/// A literal value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A quoted string.
    Str(String),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// Anything else, as written.
    Other(String),
}

impl Value {
    /// The string, if this is a non-empty string that does not spell a
    /// false value (Paddle writes `'False'` for CPU builds).
    pub fn as_version(&self) -> Option<&str> {
        match self {
            Value::Str(s) if !s.is_empty() && !matches!(s.as_str(), "False" | "None" | "OFF") => {
                Some(s)
            }
            _ => None,
        }
    }
}

/// The value bound to `key` in `text`, in any of the supported forms; the
/// last assignment wins, as it would when Python runs the file. Linear in
/// the text: each line is scanned once, the occurrences found are only
/// remembered, and the one that wins is parsed at the end (a key repeated
/// thousands of times on one line costs no more than the line).
pub fn lookup(text: &str, key: &str) -> Option<Value> {
    let mut last: Option<&str> = None;
    let tokens = [format!("'{key}'"), format!("\"{key}\"")];
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        // `key = v` or `key: Annotation = v`
        if let Some(rest) = line.strip_prefix(key)
            && rest.starts_with([' ', '=', ':'])
        {
            let rest = rest.trim_start();
            let value = if let Some(v) = rest.strip_prefix('=') {
                Some(v)
            } else if rest.starts_with(':') {
                rest.split_once('=').map(|(_, v)| v)
            } else {
                None
            };
            if value.is_some() {
                last = value;
                continue;
            }
        }
        // `['key'] = v` and `'key': v` (dict literal entries), quoted either way.
        for token in &tokens {
            let mut from = 0;
            while let Some(found) = line[from..].find(token.as_str()) {
                let at = from + found;
                let end = at + token.len();
                if let Some(v) = value_after(line, at, end) {
                    last = Some(v);
                }
                from = end;
            }
        }
    }
    last.map(parse_value)
}

/// The value after a quoted key at `line[at..end]`, where the key is one:
/// `['key'] = v`, `'key': v`, or `('key', v` (an `OrderedDict` pair).
fn value_after(line: &str, at: usize, end: usize) -> Option<&str> {
    let after = line[end..].trim_start();
    if let Some(v) = after
        .strip_prefix(']')
        .map(str::trim_start)
        .and_then(|a| a.strip_prefix('='))
    {
        return Some(v);
    }
    if let Some(v) = after.strip_prefix(':') {
        return Some(v);
    }
    // Only the character before the key, skipping spaces: never a scan of
    // the whole line before it.
    let before = line[..at].bytes().rev().find(|b| !b.is_ascii_whitespace());
    after.strip_prefix(',').filter(|_| before == Some(b'('))
}

/// The most of a value envhook keeps: build values are short (`'12.3'`).
const MAX_VALUE: usize = 256;

/// Parse the literal at the start of `text`, reading at most
/// [`MAX_VALUE`] bytes of it.
fn parse_value(text: &str) -> Value {
    let text = text.trim_start();
    let head = &text[..super::floor_char_boundary(text, MAX_VALUE)];
    for quote in ['\'', '"'] {
        if let Some(rest) = head.strip_prefix(quote) {
            return match rest.find(quote) {
                Some(end) => Value::Str(rest[..end].to_string()),
                None => Value::Other(head.to_string()),
            };
        }
    }
    // A list literal (Paddle's `compiled_cuda_archs = [75, 80]`), whole,
    // as written; one that does not close within the bound is no list.
    if head.starts_with('[') {
        return match head.find(']') {
            Some(end) => Value::Other(head[..=end].to_string()),
            None => Value::Other(String::new()),
        };
    }
    let word: String = head
        .chars()
        .take_while(|c| !matches!(c, ',' | '}' | ')' | '#') && !c.is_whitespace())
        .collect();
    match word.as_str() {
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        "None" => Value::None,
        _ => Value::Other(word),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_literal_is_read_whole() {
        let text = "compiled_cuda_archs     = [75, 80, 86]\nx = 1\n";
        assert_eq!(
            lookup(text, "compiled_cuda_archs"),
            Some(Value::Other("[75, 80, 86]".into()))
        );
        let open = format!("compiled_cuda_archs = [{}", "75, ".repeat(100));
        assert_eq!(
            lookup(&open, "compiled_cuda_archs"),
            Some(Value::Other(String::new()))
        );
    }

    #[test]
    fn torch_version_py() {
        let text = "__version__ = '2.1.2+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\ngit_version = 'a8e7c98'\nhip: Optional[str] = None\n";
        assert_eq!(lookup(text, "cuda"), Some(Value::Str("12.1".into())));
        assert_eq!(lookup(text, "hip"), Some(Value::None));
        assert_eq!(lookup(text, "debug"), Some(Value::Bool(false)));
        assert_eq!(lookup(text, "cud"), None);
        assert_eq!(lookup("cuda = None\n", "cuda"), Some(Value::None));
    }

    #[test]
    fn paddle_version_file() {
        let text = "full_version    = '2.6.2'\ncuda_version    = '11.8'\ncudnn_version   = '8.6.0'\nwith_pip_cuda_libraries = 'OFF'\n";
        assert_eq!(
            lookup(text, "cuda_version").unwrap().as_version(),
            Some("11.8")
        );
        assert_eq!(
            lookup(text, "cudnn_version").unwrap().as_version(),
            Some("8.6.0")
        );
        assert_eq!(
            lookup("cuda_version = 'False'\n", "cuda_version")
                .unwrap()
                .as_version(),
            None
        );
    }

    #[test]
    fn tensorflow_build_info_both_styles() {
        let dict = "build_info = {'cpu_compiler': '/usr/bin/gcc', 'cuda_version': '12.3', 'cudnn_version': '8', 'is_cuda_build': True}\n";
        assert_eq!(
            lookup(dict, "cuda_version"),
            Some(Value::Str("12.3".into()))
        );
        assert_eq!(lookup(dict, "is_cuda_build"), Some(Value::Bool(true)));
        let items = "import collections\nbuild_info = collections.OrderedDict()\nbuild_info['cuda_version'] = '11.2'\nbuild_info[\"is_cuda_build\"] = False\n";
        assert_eq!(
            lookup(items, "cuda_version"),
            Some(Value::Str("11.2".into()))
        );
        assert_eq!(lookup(items, "is_cuda_build"), Some(Value::Bool(false)));
        let pairs = "build_info = collections.OrderedDict([('cuda_version', '12.2'), ('is_cuda_build', True)])\n";
        assert_eq!(
            lookup(pairs, "cuda_version"),
            Some(Value::Str("12.2".into()))
        );
        assert_eq!(lookup(pairs, "is_cuda_build"), Some(Value::Bool(true)));
    }

    #[test]
    fn hostile_lines_are_read_once_and_values_kept_short() {
        // The key repeated on one long line: the last one wins.
        let mut line = "build_info = {".to_string();
        for i in 0..2000 {
            line.push_str(&format!("'cuda_version': '{i}', "));
        }
        line.push('}');
        assert_eq!(
            lookup(&line, "cuda_version"),
            Some(Value::Str("1999".into()))
        );
        // An unclosed quote or an endless word: at most MAX_VALUE kept.
        let long = format!("cuda_version = '{}", "x".repeat(100_000));
        assert!(
            matches!(lookup(&long, "cuda_version"), Some(Value::Other(v)) if v.len() <= MAX_VALUE)
        );
        let word = format!("cuda_version = {}", "é".repeat(100_000));
        assert!(
            matches!(lookup(&word, "cuda_version"), Some(Value::Other(v)) if v.len() <= MAX_VALUE)
        );
        // A pair needs its opening parenthesis right before it.
        assert_eq!(
            lookup("x = ('cuda_version', '1')", "cuda_version"),
            Some(Value::Str("1".into()))
        );
        assert_eq!(lookup("x = [a 'cuda_version', '1']", "cuda_version"), None);
    }
}
