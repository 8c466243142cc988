//! Where an object was read ([`Source`]: file, document, `List` item) and what could not be
//! read ([`InputError`]), in messages that name the file, the object and the field, as
//! kubectl's `error: error validating "FILE": …` names them.

use std::fmt;

use crate::MAX_INPUT_BYTES_ENV;

/// Where an object was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file as given on the command line (`-` for stdin); shared by its objects' sources.
    pub file: std::sync::Arc<str>,
    /// 1-based document number within the file.
    pub doc: usize,
    /// Index within a `kind: List` document's `items`.
    pub item: Option<usize>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: document {}", self.file, self.doc)?;
        if let Some(i) = self.item {
            write!(f, ", items[{i}]")?;
        }
        Ok(())
    }
}

/// A manifest that could not be used. Displays as `FILE: document N[, items[i]] (Kind name): field: problem`.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file or directory could not be read.
    #[error("{path}: {err}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        err: std::io::Error,
    },
    /// The input is longer than [`max_input_bytes`].
    #[error(
        "{path}: larger than {limit} bytes ({}), the most repel reads of one input; set {MAX_INPUT_BYTES_ENV} to a number of bytes to read more",
        human_bytes(*limit)
    )]
    TooLarge {
        /// The path (`-` for standard input).
        path: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// [`MAX_INPUT_BYTES_ENV`] is not a number of bytes.
    #[error("{MAX_INPUT_BYTES_ENV}: invalid value {value:?}: a number of bytes expected")]
    Limit {
        /// The variable's value.
        value: String,
    },
    /// The text is not YAML or JSON.
    #[error("{file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message, with its line and column.
        message: String,
    },
    /// A document parsed but is not a usable object.
    #[error("{at}{}: {message}", what.as_deref().map(|w| format!(" ({w})")).unwrap_or_default())]
    Object {
        /// Where the object is.
        at: Source,
        /// `Kind name` when known.
        what: Option<String>,
        /// The field and the problem.
        message: String,
    },
    /// Several inputs could not be used: each one's first problem, in input order.
    #[error("{}\nerror: {} of the inputs could not be used", .0.iter().map(|e| format!("error: {e}")).collect::<Vec<_>>().join("\n"), .0.len())]
    Many(Vec<InputError>),
}

impl InputError {
    /// One error for the problems of several inputs: none, the one, or [`InputError::Many`].
    pub fn gather(mut errors: Vec<InputError>) -> Result<(), InputError> {
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(InputError::Many(errors)),
        }
    }
}

/// `256 MiB`, `1.5 KiB`, `10 bytes`: a size for messages.
fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let text = format!("{v:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {}", UNITS[unit])
}
