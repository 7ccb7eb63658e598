//! Files the TUI writes (What-if drafts): never over an existing file
//! unless asked, under names that stay in the directory meant.

use std::io::Write;
use std::path::Path;

/// A file name for a draft called `name`: `NAME.yaml` with everything but
/// ASCII letters, digits, `-`, `_` and `.` replaced by `_`, and no leading
/// dot, so a draft named `../escaped` or `a/b` (the YAML editor accepts
/// any name) stays in the directory and is not hidden.
pub fn draft_file_name(name: &str) -> String {
    let mut safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.starts_with('.') {
        safe.insert(0, '_');
    }
    if safe.is_empty() {
        safe.push_str("draft");
    }
    format!("{safe}.yaml")
}

/// Writes `bytes` to a new file at `path`; an existing file (or symlink) is
/// left alone and the error says how to replace it (`again` is the command
/// that would).
pub fn write_new(path: &Path, bytes: &[u8], again: &str) -> Result<(), String> {
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    let mut file = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(format!(
                "{} already exists; not overwritten (:{again} {} replaces it, or save under another name)",
                path.display(),
                path.display()
            ));
        }
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Replaces `path` with `bytes` at once: written to a temporary file beside
/// it, then renamed over it (a symlink at `path` is replaced, not followed).
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draft_names_stay_in_the_directory() {
        assert_eq!(draft_file_name("web-0"), "web-0.yaml");
        assert_eq!(draft_file_name("../escaped"), "_.._escaped.yaml");
        assert_eq!(draft_file_name("a/b"), "a_b.yaml");
        assert_eq!(draft_file_name(".."), "_...yaml");
        assert_eq!(draft_file_name(".hidden"), "_.hidden.yaml");
        assert_eq!(draft_file_name("x\u{1b}]0;pwned\u{7}"), "x__0_pwned_.yaml");
        assert_eq!(draft_file_name(""), "draft.yaml");
        for name in ["../escaped", "..", "/etc/passwd", "a\nb"] {
            let file = draft_file_name(name);
            assert!(!file.contains('/'), "{file}");
            assert_eq!(
                Path::new(&file).components().count(),
                1,
                "{name:?} → {file}"
            );
        }
    }

    #[test]
    fn write_new_refuses_an_existing_file_and_replace_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.yaml");
        write_new(&path, b"first", "save!").unwrap();
        let err = write_new(&path, b"second", "save!").unwrap_err();
        assert!(err.contains("already exists; not overwritten"), "{err}");
        assert!(err.contains(":save! "), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        replace(&path, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
    }

    #[test]
    fn write_new_does_not_follow_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_new(&link, b"x", "save!").is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        replace(&link, b"x").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }
}
