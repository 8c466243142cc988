//! The first stage: `-f` arguments become files and files become text. A directory gives its
//! `.json`, `.yaml` and `.yml` files, and with `-R` its subdirectories' (kubectl's
//! `k8s.io/cli-runtime/pkg/resource/visitor.go`, `ExpandPathsToFileVisitors`); `-` is standard
//! input; every input is read up to a size limit.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::InputError;

/// The most repel reads of one input (a manifest, a scenario, a file a scenario names, standard
/// input): 256 MiB. Eleven times upstream's largest cluster (5,000 nodes and 150,000 pods are
/// 23 MB of generated YAML), and small enough that its parsed objects fit in 4 GB (a 257 MB
/// file of manifests peaks at 3.2 GB while read); what is longer — a device such as
/// `/dev/zero`, a FIFO that never ends, a runaway file — stops there with
/// [`InputError::TooLarge`] instead of filling memory.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// The environment variable that replaces [`MAX_INPUT_BYTES`] (a number of bytes), for inputs
/// larger still and for tests, which keep their memory small with a small limit.
pub const MAX_INPUT_BYTES_ENV: &str = "REPEL_MAX_INPUT_BYTES";

/// The limit in force: [`MAX_INPUT_BYTES_ENV`] when set, else [`MAX_INPUT_BYTES`].
pub fn max_input_bytes() -> Result<u64, InputError> {
    match std::env::var(MAX_INPUT_BYTES_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(MAX_INPUT_BYTES),
        Ok(v) => v.trim().parse().map_err(|_| InputError::Limit { value: v }),
        Err(std::env::VarError::NotUnicode(v)) => Err(InputError::Limit {
            value: v.to_string_lossy().into_owned(),
        }),
    }
}

/// Reads text from a path, or stdin for `-`, at most [`max_input_bytes`] of it.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    read_text_limited(path, max_input_bytes()?)
}

/// [`read_text`] with an explicit limit: a longer input is [`InputError::TooLarge`], found
/// without reading a regular file whose size says so, and after `limit + 1` bytes of anything
/// else (a device, a FIFO, standard input), so an endless input stops there.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, InputError> {
    let name = path.display().to_string();
    let io = |err| InputError::Io {
        path: name.clone(),
        err,
    };
    let too_large = || InputError::TooLarge {
        path: name.clone(),
        limit,
    };
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    } else {
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        if size.is_some_and(|len| len > limit) {
            return Err(too_large());
        }
        // A regular file's text is read into a buffer of its size (and one byte to see the
        // end), not grown by doubling: a 20 MB file was copied from buffer to buffer and
        // faulted in twice over.
        if let Some(len) = size.and_then(|len| usize::try_from(len).ok()) {
            bytes.reserve_exact(len.saturating_add(1));
        }
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    }
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    // The error `read_to_string` gives, as before the limit.
    String::from_utf8(bytes).map_err(|_| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Expands `-f` arguments: a directory gives its `.yaml`, `.yml` and `.json` files in name order,
/// and with `recursive` those of its subdirectories too (kubectl's `-R`).
pub fn expand_paths(args: &[PathBuf], recursive: bool) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            expand_dir(p, recursive, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn expand_dir(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    let io = |err| InputError::Io {
        path: dir.display().to_string(),
        err,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for f in entries {
        if f.is_dir() {
            if recursive {
                expand_dir(&f, recursive, out)?;
            }
        } else if matches!(
            f.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(f);
        }
    }
    Ok(())
}
