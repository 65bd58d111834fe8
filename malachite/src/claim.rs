//! What a node claims before it starts, so that a second node on the same home or a busy port is a one-line
//! error with the fix rather than an engine that stops without saying why: its home, by a lock on
//! `HOME/node.lock`, held as long as the process lives (the kernel releases it when the process dies, even by
//! `kill -9`, so a restart is never refused by a stale lock); and its listening port, tried before the engine
//! binds it.

use std::fs::File;
use std::io::Write as _;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::Path;

use crate::config::ConfigError;

/// The lock on a node's home: dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct HomeLock {
    _file: File,
}

/// Takes the lock on the home `dir`, or says which process holds it.
pub fn lock_home(dir: &Path) -> Result<HomeLock, ConfigError> {
    let path = dir.join("node.lock");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| ConfigError(format!("cannot open {}: {e}", path.display())))?;
    #[cfg(unix)]
    {
        use rustix::fs::{FlockOperation, flock};
        if let Err(e) = flock(&file, FlockOperation::NonBlockingLockExclusive) {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            return Err(ConfigError(if e == rustix::io::Errno::WOULDBLOCK {
                format!(
                    "another process{} runs the node at {} already (it holds {}): stop it first; two \
                     processes on one home would sign conflicting votes with its key",
                    if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" (pid {holder})")
                    },
                    dir.display(),
                    path.display()
                )
            } else {
                format!("cannot lock {}: {e}", path.display())
            }));
        }
    }
    // Who holds it, for the message above; written only once the lock is ours.
    file.set_len(0)
        .and_then(|()| write!(file, "{}", std::process::id()))
        .map_err(|e| ConfigError(format!("cannot write {}: {e}", path.display())))?;
    Ok(HomeLock { _file: file })
}

/// The socket address of a `/ip4/A/tcp/P` or `/ip6/A/tcp/P` multiaddress; `None` for any other form (a DNS
/// name), which the engine resolves itself.
pub fn socket_addr(multiaddr: &str) -> Option<SocketAddr> {
    let parts: Vec<&str> = multiaddr.split('/').collect();
    let ["", "ip4" | "ip6", ip, "tcp", port] = parts.as_slice() else {
        return None;
    };
    Some(SocketAddr::new(
        ip.parse::<IpAddr>().ok()?,
        port.parse().ok()?,
    ))
}

/// Checks that this node can listen on `listen_addr` (its `config.json`'s) by binding it for a moment.
pub fn check_port(listen_addr: &str, home: &Path) -> Result<(), ConfigError> {
    let Some(addr) = socket_addr(listen_addr) else {
        return Ok(());
    };
    match TcpListener::bind(addr) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(ConfigError(format!(
            "port {} is in use (listen_addr {listen_addr} in {}): stop the program that listens there, or \
             choose another port in listen_addr (and in the other nodes' persistent_peers)",
            addr.port(),
            home.join("config.json").display()
        ))),
        Err(e) => Err(ConfigError(format!(
            "cannot listen on {listen_addr} (listen_addr in {}): {e}",
            home.join("config.json").display()
        ))),
    }
}
