//! Writing user files safely: an advisory lock around read-merge-write, atomic replacement that
//! keeps the target's permissions and writes through symbolic links, and no temporary files left
//! behind (removed on error; stale ones from killed runs removed by the next writer).

use anyhow::{Context, Result};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A temporary file older than this is stale even if its process id is in use again.
const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// An exclusive advisory lock on `.<name>.lock` next to `target`, held until dropped. Every
/// `gpuplan catalog import` takes it before reading the file it rewrites, so concurrent imports
/// serialise instead of losing each other's rows. Stale temporary files are removed once it is held.
pub struct CatalogLock {
    _file: File,
}

pub fn lock(target: &Path) -> Result<CatalogLock> {
    let (dir, name) = dir_and_name(target)?;
    fs::create_dir_all(&dir).with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-ctx-cannot-create")
                .arg("path", dir.display().to_string()),
        )
    })?;
    let path = dir.join(format!(".{name}.lock"));
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| {
            crate::render::Localized(
                gpuplan_core::i18n::Msg::new("cli-ctx-cannot-open-lock")
                    .arg("path", path.display().to_string()),
            )
        })?;
    file.lock().with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-ctx-cannot-lock")
                .arg("path", path.display().to_string()),
        )
    })?;
    clean_stale_temps(&dir, &name);
    Ok(CatalogLock { _file: file })
}

fn dir_and_name(path: &Path) -> Result<(PathBuf, String)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .with_context(|| {
            crate::render::Localized(
                gpuplan_core::i18n::Msg::new("cli-ctx-not-a-file")
                    .arg("path", path.display().to_string()),
            )
        })?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    Ok((dir, name))
}

/// The file a path finally names, following symbolic links (which need not resolve yet).
pub fn link_target(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = fs::read_link(&p).with_context(|| {
                    crate::render::Localized(
                        gpuplan_core::i18n::Msg::new("cli-ctx-cannot-read-link")
                            .arg("path", p.display().to_string()),
                    )
                })?;
                p = match p.parent() {
                    Some(dir) if t.is_relative() => dir.join(t),
                    _ => t,
                };
            }
            _ => return Ok(p),
        }
    }
    anyhow::bail!(
        "{} is a loop of symbolic links: point it at a file",
        path.display()
    )
}

fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// Remove `.<name>.tmp-<pid>` files whose process is gone (or that are older than
/// [`STALE_AFTER`]): leftovers of runs that were killed mid-write.
pub fn clean_stale_temps(dir: &Path, name: &str) {
    let prefix = temp_prefix(name);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file_name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        let dead = pid
            .parse::<u32>()
            .map_or(true, |pid| pid != std::process::id() && !pid_alive(pid));
        if dead || old {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Whether a process id is in use (Linux: /proc; elsewhere assumed alive, so only age counts).
fn pid_alive(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

/// Write a file atomically: a temporary file in the same directory, flushed, then renamed over
/// the target, so a crash or a kill never leaves a half-written file. The target keeps its
/// permissions; a symbolic link stays a link (the file it points at is replaced).
pub fn write_atomic(path: &Path, contents: &str) -> Result<()> {
    let target = link_target(path)?;
    let (dir, name) = dir_and_name(&target)?;
    fs::create_dir_all(&dir).with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-ctx-cannot-create")
                .arg("path", dir.display().to_string()),
        )
    })?;
    clean_stale_temps(&dir, &name);
    let tmp = dir.join(format!("{}{}", temp_prefix(&name), std::process::id()));
    let perms = fs::metadata(&target).ok().map(|m| m.permissions());
    let result = write_then_rename(&tmp, &target, contents, perms);
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-ctx-cannot-write")
                .arg("path", path.display().to_string()),
        )
    })
}

fn write_then_rename(
    tmp: &Path,
    target: &Path,
    contents: &str,
    perms: Option<fs::Permissions>,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = File::create(tmp)?;
    f.write_all(contents.as_bytes())?;
    if let Some(p) = perms {
        f.set_permissions(p)?;
    }
    f.sync_all()?;
    fs::rename(tmp, target)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// This test's scratch root, removed when its thread ends (`tempfile`).
        static ROOT: tempfile::TempDir = tempfile::Builder::new()
            .prefix("gpuplan-uf-")
            .tempdir()
            .unwrap();
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = ROOT.with(|r| r.path().join(tag));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch("perm");
        let real = d.join("real.toml");
        fs::write(&real, "a = 1\n").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = d.join("link.toml");
        std::os::unix::fs::symlink("real.toml", &link).unwrap();
        write_atomic(&link, "a = 2\n").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "a = 2\n");
        let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn stale_temps_are_removed_live_ones_kept() {
        let d = scratch("stale");
        let dead = d.join(".x.toml.tmp-999999999");
        let mine = d.join(format!(".x.toml.tmp-{}", std::process::id()));
        let other = d.join(".y.toml.tmp-999999999");
        for p in [&dead, &mine, &other] {
            fs::write(p, "partial").unwrap();
        }
        clean_stale_temps(&d, "x.toml");
        assert!(!dead.exists() && mine.exists() && other.exists());
        write_atomic(&d.join("x.toml"), "ok = true\n").unwrap();
        assert!(!mine.exists(), "the writer's own temp file is renamed");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failed_write_leaves_no_temp_file() {
        let d = scratch("fail");
        let target = d.join("dir.toml");
        fs::create_dir_all(target.join("inside")).unwrap();
        assert!(write_atomic(&target, "x = 1\n").is_err());
        let left: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(left.is_empty());
        let _ = fs::remove_dir_all(&d);
    }
}
