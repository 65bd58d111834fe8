//! The one way fsmc writes a file (`gen -o`, `fmt`, and `-o` of `export`, `graph` and `import`): atomically,
//! through a symbolic link to its target, keeping the file's permissions, and never over a read-only file.
//!
//! The new content goes to a temporary file created exclusively, under a name no one can predict, in the
//! directory of the file it replaces (so that a link planted under a guessed name is never followed), and is
//! renamed over the file only once it is written in full: a failed write leaves the previous file as it was.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How many links are followed before giving up, as the kernel does.
const MAX_LINKS: usize = 40;

/// Replaces the file at `path` (or the file a link at `path` leads to) with `bytes`.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |f| f.write_all(bytes))
}

/// [`write_atomically`], with the content written by `fill` (which the tests make fail half-way).
pub(crate) fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let target = follow_links(path)?;
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(meta) = &existing {
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        if meta.permissions().readonly() {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the file is read-only",
            ));
        }
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".fsmc.tmp");
    // A new file gets the mode any new file gets (0666 less the umask), not the temporary file's 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    fill(tmp.as_file_mut())?;
    if let Some(meta) = &existing {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.as_file().sync_all()?;
    // Dropping the temporary file on any error above removes it.
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// The file `path` names once every symbolic link on the way is followed: writing replaces that file and
/// leaves the links in place. A dangling link leads to the file it would create.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) => dir.join(link),
                    None => link,
                };
            }
            Ok(_) => return Ok(at),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

// Links and modes as the tests plant them are Unix's.
#[cfg(all(test, unix))]
mod tests;
