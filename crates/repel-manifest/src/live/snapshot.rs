//! A cluster read written as manifests (`repel snapshot`): one multi-document YAML file per
//! kind, in parts, named so that reading the directory takes them in [`KINDS`]' order.

use std::path::{Path, PathBuf};

use super::{KINDS, Kind, Listing, YamlPage};

/// Objects per snapshot file: a kind with more is written in parts (`12-pods-0001.yaml`, …),
/// each well under the most repel reads of one file ([`crate::MAX_INPUT_BYTES`]) even
/// for pods ten times the size of a typical one.
pub const OBJECTS_PER_FILE: usize = 10_000;

/// The snapshot written as manifests into `dir`: one multi-document YAML file per kind read,
/// in parts of [`OBJECTS_PER_FILE`], named so that a directory read takes them in [`KINDS`]'
/// order; returns the files written and their objects. Files of an earlier snapshot for these
/// kinds are removed first, so none is read with this one.
pub fn write_snapshot(
    listing: &Listing<YamlPage>,
    dir: &Path,
) -> Result<Vec<(PathBuf, usize)>, String> {
    use std::io::Write as _;
    let io = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let path = entry.map_err(|e| io(dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if KINDS.iter().any(|k| snapshot_file_of(k, name))
            || FORMER_FILES.iter().any(|f| file_or_part(f, name))
        {
            std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
        }
    }
    let mut written = Vec::new();
    for (kind, pages) in KINDS.iter().zip(&listing.kinds) {
        let total: usize = pages.iter().map(|p| p.starts.len()).sum();
        let parts = total.div_ceil(OBJECTS_PER_FILE);
        let path_of = |n: usize| {
            if parts == 1 {
                dir.join(kind.file)
            } else {
                let stem = kind.file.trim_end_matches(".yaml");
                dir.join(format!("{stem}-{n:04}.yaml"))
            }
        };
        // The pages' documents in order, cut into files of OBJECTS_PER_FILE.
        let mut file: Option<(PathBuf, std::fs::File, usize)> = None;
        let mut part = 0;
        for page in pages {
            let mut at = 0;
            while at < page.starts.len() {
                let (path, f, n) = match &mut file {
                    Some(open) => open,
                    None => {
                        part += 1;
                        let path = path_of(part);
                        let f = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
                        file.insert((path, f, 0))
                    }
                };
                let take = (OBJECTS_PER_FILE - *n).min(page.starts.len() - at);
                f.write_all(page.documents(at, at + take).as_bytes())
                    .map_err(|e| io(path, e))?;
                *n += take;
                at += take;
                if *n == OBJECTS_PER_FILE
                    && let Some((path, _, n)) = file.take()
                {
                    written.push((path, n));
                }
            }
        }
        if let Some((path, _, n)) = file.take() {
            written.push((path, n));
        }
    }
    Ok(written)
}

/// Whether `name` is a file [`write_snapshot`] writes for `kind`.
fn snapshot_file_of(kind: &Kind, name: &str) -> bool {
    file_or_part(kind.file, name)
}

/// The files earlier repel versions wrote before ReplicationControllers were read (pods were
/// `11-`, pools `12-` and `13-`): removed too, so a snapshot taken again over an old one does
/// not read its pods twice.
const FORMER_FILES: &[&str] = &["11-pods.yaml", "12-nodepools.yaml", "13-nodeclaims.yaml"];

/// Whether `name` is `file` or one of its parts (`STEM-0001.yaml`).
fn file_or_part(file: &str, name: &str) -> bool {
    let stem = file.trim_end_matches(".yaml");
    name == file
        || name
            .strip_prefix(stem)
            .and_then(|r| r.strip_prefix('-'))
            .and_then(|r| r.strip_suffix(".yaml"))
            .is_some_and(|n| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()))
}
