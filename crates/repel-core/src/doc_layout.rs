//! The rule every crate's root keeps: each `pub mod` is listed, as a link, in the crate's
//! `# Layout` section, so that the crate's front page is its map. Each crate's root runs
//! [`unlisted_modules`] on its own source in a unit test.

/// The public modules `pub mod NAME;` of a crate root's source `lib_rs` that its `# Layout`
/// section (the `//!` lines from `//! # Layout` to the next `//! #` heading or the end of the
/// crate docs) does not list as ``[`NAME`]``.
pub fn unlisted_modules(lib_rs: &str) -> Vec<String> {
    let mut layout = String::new();
    let mut inside = false;
    for line in lib_rs.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            if inside && !line.trim().is_empty() {
                break;
            }
            continue;
        };
        let doc = doc.trim();
        if doc == "# Layout" {
            inside = true;
        } else if inside && doc.starts_with('#') {
            break;
        } else if inside {
            layout.push_str(doc);
            layout.push('\n');
        }
    }
    lib_rs
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';'))
        .filter(|m| !layout.contains(&format!("[`{m}`]")))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::unlisted_modules;

    #[test]
    fn a_module_missing_from_the_layout_is_named() {
        let src = "//! Crate.\n//!\n//! # Layout\n//! - [`a`]: one.\n//! - `b`: not a link.\n//!\n//! # Example\n//! [`c`]\n\npub mod a;\npub mod b;\npub mod c;\nmod d;\n";
        assert_eq!(unlisted_modules(src), ["b", "c"]);
        assert_eq!(unlisted_modules("pub mod x;\n"), ["x"], "no layout at all");
    }

    #[test]
    fn every_public_module_of_repel_core_is_in_its_layout() {
        assert_eq!(
            unlisted_modules(include_str!("lib.rs")),
            Vec::<String>::new()
        );
    }
}
