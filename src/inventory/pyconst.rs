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
/// last assignment wins, as it would when Python runs the file.
pub fn lookup(text: &str, key: &str) -> Option<Value> {
    let mut found = None;
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
            if let Some(v) = value {
                found = Some(parse_value(v));
                continue;
            }
        }
        // `['key'] = v` and `'key': v` (dict literal entries), quoted either way.
        for quote in ['\'', '"'] {
            let token = format!("{quote}{key}{quote}");
            let mut search = line;
            while let Some(at) = search.find(&token) {
                let after = search[at + token.len()..].trim_start();
                if let Some(v) = after
                    .strip_prefix(']')
                    .map(str::trim_start)
                    .and_then(|a| a.strip_prefix('='))
                {
                    found = Some(parse_value(v));
                } else if let Some(v) = after.strip_prefix(':') {
                    found = Some(parse_value(v));
                } else if let Some(v) = after.strip_prefix(',')
                    && search[..at].trim_end().ends_with('(')
                {
                    // `OrderedDict([('key', value), ...])`
                    found = Some(parse_value(v));
                }
                search = &search[at + token.len()..];
            }
        }
    }
    found
}

/// Parse the literal at the start of `text`.
fn parse_value(text: &str) -> Value {
    let text = text.trim_start();
    for quote in ['\'', '"'] {
        if let Some(rest) = text.strip_prefix(quote) {
            return match rest.find(quote) {
                Some(end) => Value::Str(rest[..end].to_string()),
                None => Value::Other(text.to_string()),
            };
        }
    }
    let word: String = text
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
}
