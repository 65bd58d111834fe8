//! The writer on planted links, kept and refused modes, and a write that fails half-way.

use super::*;
use std::os::unix::fs::{PermissionsExt as _, symlink};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_link_planted_under_a_guessable_name_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    // The names a temporary file could once be given: the file's name and this process's id.
    for name in [
        format!(".out.rs.fsmc-{}.tmp", std::process::id()),
        ".out.rs.fsmc.tmp".to_string(),
    ] {
        symlink(&victim, dir.path().join(name)).unwrap();
    }
    let out = dir.path().join("out.rs");
    write_atomically(&out, b"generated").unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(fs::read_to_string(&out).unwrap(), "generated");
}

#[test]
fn writes_through_a_link_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/spec.fsm");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("spec.fsm");
    symlink("real/spec.fsm", &link).unwrap();
    write_atomically(&link, b"new").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "new");
    assert_eq!(names(&dir.path().join("real")), ["spec.fsm"]);
}

#[test]
fn keeps_the_mode_and_refuses_a_read_only_file() {
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("private.fsm");
    fs::write(&private, "old").unwrap();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o600)).unwrap();
    write_atomically(&private, b"new").unwrap();
    assert_eq!(mode(&private), 0o600);
    assert_eq!(fs::read_to_string(&private).unwrap(), "new");

    let frozen = dir.path().join("frozen.fsm");
    fs::write(&frozen, "old").unwrap();
    fs::set_permissions(&frozen, fs::Permissions::from_mode(0o444)).unwrap();
    let e = write_atomically(&frozen, b"new").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
    assert_eq!(fs::read_to_string(&frozen).unwrap(), "old");
    assert_eq!(mode(&frozen), 0o444);
}

#[test]
fn a_failed_write_leaves_the_previous_file_and_no_temporary_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("graph.svg");
    fs::write(&out, "a good drawing").unwrap();
    let e = write_with(&out, |f| {
        f.write_all(b"half a dr")?;
        Err(io::Error::other("no space left"))
    })
    .unwrap_err();
    assert_eq!(e.to_string(), "no space left");
    assert_eq!(fs::read_to_string(&out).unwrap(), "a good drawing");
    assert_eq!(names(dir.path()), ["graph.svg"]);
}

#[test]
fn a_new_file_is_not_left_private() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new.rs");
    write_atomically(&out, b"x").unwrap();
    // The temporary file is created 0600; a new file gets 0666 less the umask, which keeps the owner's bits.
    assert_eq!(mode(&out) & 0o600, 0o600);
    assert_eq!(fs::read_to_string(&out).unwrap(), "x");
}
