//! The durable block store: every decided block with its commit certificate and the app hash the replica
//! reached after applying it, and the proposals seen above the stored height, in one embedded database
//! (`store.redb`, a [redb](https://www.redb.org) file). Storing a height is one write transaction, committed
//! and synced to disk before the engine is told the decision is committed: it writes the block and drops the
//! proposals up to it, so a crash leaves either the whole height or none of it, never a torn record.
//!
//! Tables: `blocks` maps a height to its [`StoredBlock`]; `proposals` maps (height, sequence number) to a
//! [`SignedBlock`]. Every value is `[SHA-256 of the payload: 32 bytes][payload]`, the payload being the
//! value's Borsh encoding: the database guarantees that a commit is atomic, the checksum that a value read
//! back is the value written (a byte damaged on disk since is refused, not replayed). Opening the store checks
//! every block (checksum, encoding, consecutive heights, the certificate naming the block) and refuses a
//! damaged store with [`StoreError::Corrupt`], naming the table and the key.
//!
//! Only this node's own proposals are committed durably: a proposer that crashes and restarts proposes the
//! very same block again for the same round instead of equivocating. A proposal received from another node is
//! committed without a sync (it becomes durable with the next synced commit); lost with the machine, value
//! sync fetches the block again.
//!
//! Snapshots: every so many heights the node stores its replica's whole state (`snapshots`: height to
//! [`StoredSnapshot`]) and, when configured to, prunes the blocks more than so many heights below it (`meta`
//! holds `pruned_below`, the first height still stored). At start the node restores the latest snapshot and
//! replays only the blocks after it; only those are read and checked then (any other block is checked when it
//! is read). The two latest snapshots are kept.
//!
//! The database file is locked while open: a second process (`inspect` on a running node) is refused with
//! [`StoreError::Locked`], which says to stop the node or ask its status endpoint.

use borsh::{BorshDeserialize, BorshSerialize};
use redb::{Database, Durability, ReadableTable, TableDefinition};
use sha2::{Digest, Sha256};
use std::fmt::{self, Display, Formatter};
use std::path::{Path, PathBuf};

use malachitebft_core_types::{CommitCertificate, Round};

use crate::types::{Address, BlockValue, FsmcContext, Height, SignedBlock};

/// The database file in a node's data directory.
pub const STORE_FILE: &str = "store.redb";
const BLOCKS: TableDefinition<u64, &[u8]> = TableDefinition::new("blocks");
const PROPOSALS: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("proposals");
const SNAPSHOTS: TableDefinition<u64, &[u8]> = TableDefinition::new("snapshots");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// The `meta` entry holding the first height still stored.
const PRUNED_BELOW: &str = "pruned_below";
/// How many snapshots are kept: the latest, and one before it in case the latest cannot be restored.
const SNAPSHOTS_KEPT: usize = 2;

/// A replica's state as stored at a height: the app's own encoding (`App::snapshot`) and the app hash the
/// restored state must have.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct StoredSnapshot {
    /// The height of the last block applied.
    pub height: u64,
    /// The app hash after it.
    pub app_hash: [u8; 32],
    /// The state.
    pub state: Vec<u8>,
}

/// One height as stored.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct StoredBlock {
    /// The height.
    pub height: u64,
    /// The decided block.
    pub value: BlockValue,
    /// The certificate: a quorum of precommits for the block.
    pub certificate: CommitCertificate<FsmcContext>,
    /// The app hash after applying the block.
    pub app_hash: [u8; 32],
}

/// What went wrong with the store.
#[derive(Debug)]
pub enum StoreError {
    /// The file system or the database refused.
    Io(PathBuf, String),
    /// The store is damaged: the node must not go on from it.
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// Where: the table and the key (`the block at height 7`), or the file itself.
        at: String,
        /// What is wrong.
        reason: String,
    },
    /// Another process (a running node) holds the store open.
    Locked(PathBuf),
}

impl Display for StoreError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(path, e) => write!(f, "block store {}: {e}", path.display()),
            Self::Corrupt { path, at, reason } => write!(
                f,
                "block store {} is corrupt at {at}: {reason}",
                path.display()
            ),
            Self::Locked(path) => write!(
                f,
                "block store {} is open in another process (a node running on this home): stop the node \
                 first, or ask its /status endpoint for its height and app hash",
                path.display()
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// The store's error for a database error on `path`: damage the database found itself is [`StoreError::Corrupt`].
fn db_error(path: &Path, e: impl Into<redb::Error>) -> StoreError {
    match e.into() {
        redb::Error::DatabaseAlreadyOpen => StoreError::Locked(path.to_path_buf()),
        redb::Error::Corrupted(reason) => StoreError::Corrupt {
            path: path.to_path_buf(),
            at: "the database file".into(),
            reason,
        },
        redb::Error::Io(e) if e.kind() == std::io::ErrorKind::InvalidData => StoreError::Corrupt {
            path: path.to_path_buf(),
            at: "the database file".into(),
            reason: format!("not a block store ({e})"),
        },
        other => StoreError::Io(path.to_path_buf(), other.to_string()),
    }
}

/// `[checksum][payload]` of `value`.
fn seal(value: &impl BorshSerialize) -> Vec<u8> {
    let payload = borsh::to_vec(value).unwrap_or_default();
    let mut sealed = Vec::with_capacity(32 + payload.len());
    sealed.extend_from_slice(&Sha256::digest(&payload));
    sealed.extend_from_slice(&payload);
    sealed
}

/// The value sealed in `bytes`, or what is wrong with it.
fn unseal<T: BorshDeserialize>(bytes: &[u8]) -> Result<T, String> {
    let (sum, payload) = bytes.split_at_checked(32).ok_or_else(|| {
        format!(
            "a value of {} bytes is shorter than its checksum",
            bytes.len()
        )
    })?;
    if Sha256::digest(payload).as_slice() != sum {
        return Err("checksum mismatch".into());
    }
    borsh::from_slice(payload).map_err(|e| format!("it does not decode: {e}"))
}

/// A stored block's own consistency: its height, its block's and its certificate's agree.
fn check_block(height: u64, stored: &StoredBlock) -> Result<(), String> {
    if stored.height != height {
        return Err(format!("it holds height {}", stored.height));
    }
    if stored.value.height != stored.height
        || stored.certificate.height != Height(stored.height)
        || stored.certificate.value_id != stored.value.id_bytes()
    {
        return Err("the block does not match its certificate".into());
    }
    Ok(())
}

/// The decided blocks of one node, and the proposals seen above them.
pub struct BlockStore {
    db: Database,
    path: PathBuf,
    /// The proposals recorded above the stored height.
    own: Vec<SignedBlock>,
    /// The key the next proposal is stored under.
    next_seq: u64,
    last: Option<StoredBlock>,
    /// The first height still stored.
    first: u64,
}

/// What opening the store found.
pub struct Opened {
    /// The store.
    pub store: BlockStore,
    /// The latest snapshot, to restore before replaying.
    pub snapshot: Option<StoredSnapshot>,
    /// Every stored block after the snapshot (after genesis without one), in height order, to replay.
    pub blocks: Vec<StoredBlock>,
}

impl BlockStore {
    /// Opens the store in `dir` (creating it if needed), checking every block.
    pub fn open(dir: &Path) -> Result<Opened, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Io(dir.to_path_buf(), e.to_string()))?;
        let path = dir.join(STORE_FILE);
        let db = Database::create(&path).map_err(|e| db_error(&path, e))?;
        let txn = db.begin_write().map_err(|e| db_error(&path, e))?;
        // Both tables exist from the first open on, so a reader never meets a missing table.
        txn.open_table(BLOCKS).map_err(|e| db_error(&path, e))?;
        txn.open_table(PROPOSALS).map_err(|e| db_error(&path, e))?;
        txn.open_table(SNAPSHOTS).map_err(|e| db_error(&path, e))?;
        txn.open_table(META).map_err(|e| db_error(&path, e))?;
        txn.commit().map_err(|e| db_error(&path, e))?;
        let snapshot = latest_snapshot(&db, &path)?;
        let first = pruned_below(&db, &path)?;
        let after = snapshot.as_ref().map_or(0, |s| s.height);
        if first > after.saturating_add(1) {
            return Err(StoreError::Corrupt {
                path,
                at: "the snapshots".into(),
                reason: format!(
                    "the blocks below height {first} are pruned, but the latest snapshot is at {after}"
                ),
            });
        }
        let blocks = read_blocks(&db, &path, after.saturating_add(1).max(first))?;
        let mut store = BlockStore {
            db,
            path,
            own: Vec::new(),
            next_seq: 0,
            last: None,
            first,
        };
        store.last = match blocks.last() {
            Some(last) => Some(last.clone()),
            None => store.get(after)?,
        };
        (store.own, store.next_seq) = read_proposals(&store.db, &store.path, store.height())?;
        Ok(Opened {
            store,
            snapshot,
            blocks,
        })
    }

    /// Reads and checks the stored blocks without changing anything; a store that does not exist reads as
    /// empty, one a running node holds is [`StoreError::Locked`].
    pub fn read(dir: &Path) -> Result<Vec<StoredBlock>, StoreError> {
        let path = dir.join(STORE_FILE);
        if !path.exists() {
            return Ok(Vec::new());
        }
        let db = Database::open(&path).map_err(|e| db_error(&path, e))?;
        let first = pruned_below(&db, &path)?;
        read_blocks(&db, &path, first)
    }

    /// The height of the last stored block (0 if none).
    pub fn height(&self) -> u64 {
        self.last.as_ref().map_or(0, |b| b.height)
    }

    /// The first height still stored (1 unless blocks were pruned or the history starts at a peer's
    /// snapshot): what value sync can serve from.
    pub fn first_height(&self) -> u64 {
        self.first
    }

    /// The last stored block.
    pub fn last(&self) -> Option<&StoredBlock> {
        self.last.as_ref()
    }

    /// Stores the next height and forgets the proposals up to it, in one transaction synced to disk.
    pub fn append(&mut self, block: StoredBlock) -> Result<(), StoreError> {
        let path = &self.path;
        let txn = self.db.begin_write().map_err(|e| db_error(path, e))?;
        {
            let mut blocks = txn.open_table(BLOCKS).map_err(|e| db_error(path, e))?;
            blocks
                .insert(block.height, seal(&block).as_slice())
                .map_err(|e| db_error(path, e))?;
            let mut proposals = txn.open_table(PROPOSALS).map_err(|e| db_error(path, e))?;
            proposals
                .retain_in((0, 0)..(block.height.saturating_add(1), 0), |_, _| false)
                .map_err(|e| db_error(path, e))?;
        }
        txn.commit().map_err(|e| db_error(path, e))?;
        let height = block.height;
        self.last = Some(block);
        self.own.retain(|p| p.height.0 > height);
        Ok(())
    }

    /// Stores the next heights, in order, in one transaction synced to disk: a history imported at once (a
    /// benchmark's, or a node's brought from elsewhere) rather than decided height by height.
    pub fn import(&mut self, blocks: Vec<StoredBlock>) -> Result<(), StoreError> {
        let path = &self.path;
        let mut next = self.height().saturating_add(1);
        let txn = self.db.begin_write().map_err(|e| db_error(path, e))?;
        {
            let mut table = txn.open_table(BLOCKS).map_err(|e| db_error(path, e))?;
            for block in &blocks {
                check_block(next, block).map_err(|reason| StoreError::Io(path.clone(), reason))?;
                table
                    .insert(block.height, seal(block).as_slice())
                    .map_err(|e| db_error(path, e))?;
                next = next.saturating_add(1);
            }
        }
        txn.commit().map_err(|e| db_error(path, e))?;
        if let Some(last) = blocks.into_iter().last() {
            self.last = Some(last);
        }
        Ok(())
    }

    /// The block stored at `height`, checked.
    pub fn get(&self, height: u64) -> Result<Option<StoredBlock>, StoreError> {
        let path = &self.path;
        let txn = self.db.begin_read().map_err(|e| db_error(path, e))?;
        let table = txn.open_table(BLOCKS).map_err(|e| db_error(path, e))?;
        let Some(bytes) = table.get(height).map_err(|e| db_error(path, e))? else {
            return Ok(None);
        };
        let stored = unseal::<StoredBlock>(bytes.value())
            .and_then(|b| check_block(height, &b).map(|()| b))
            .map_err(|reason| StoreError::Corrupt {
                path: path.clone(),
                at: format!("the block at height {height}"),
                reason,
            })?;
        Ok(Some(stored))
    }

    /// Records a proposal seen (or made) above the stored height; `durable` (this node's own proposal) syncs
    /// it to disk before returning.
    pub fn save_proposal(&mut self, block: SignedBlock, durable: bool) -> Result<(), StoreError> {
        let path = &self.path;
        let mut txn = self.db.begin_write().map_err(|e| db_error(path, e))?;
        if !durable {
            txn.set_durability(Durability::None);
        }
        {
            let mut table = txn.open_table(PROPOSALS).map_err(|e| db_error(path, e))?;
            table
                .insert((block.height.0, self.next_seq), seal(&block).as_slice())
                .map_err(|e| db_error(path, e))?;
        }
        txn.commit().map_err(|e| db_error(path, e))?;
        self.next_seq += 1;
        self.own.push(block);
        Ok(())
    }

    /// Whether this very part is recorded already.
    pub fn has_proposal(&self, block: &SignedBlock) -> bool {
        self.own.contains(block)
    }

    /// The block `proposer` proposed at (`height`, `round`), if recorded.
    pub fn proposal_by(
        &self,
        proposer: &Address,
        height: Height,
        round: Round,
    ) -> Option<&SignedBlock> {
        self.own
            .iter()
            .find(|b| b.height == height && b.round == round && b.value.proposer == *proposer)
    }

    /// Every proposal recorded at `height`.
    pub fn proposals_at(&self, height: Height) -> impl Iterator<Item = &SignedBlock> {
        self.own.iter().filter(move |b| b.height == height)
    }
}

/// Every stored block from height `first` on, checked, in height order.
fn read_blocks(db: &Database, path: &Path, first: u64) -> Result<Vec<StoredBlock>, StoreError> {
    let txn = db.begin_read().map_err(|e| db_error(path, e))?;
    let table = match txn.open_table(BLOCKS) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(db_error(path, e)),
    };
    let mut blocks = Vec::new();
    let mut expected = first;
    for entry in table.range(first..).map_err(|e| db_error(path, e))? {
        let (key, bytes) = entry.map_err(|e| db_error(path, e))?;
        let height = key.value();
        let corrupt = |reason: String| StoreError::Corrupt {
            path: path.to_path_buf(),
            at: format!("the block at height {height}"),
            reason,
        };
        if height != expected {
            return Err(corrupt(format!(
                "the heights are not consecutive: expected {expected}"
            )));
        }
        let stored: StoredBlock = unseal(bytes.value()).map_err(corrupt)?;
        check_block(height, &stored).map_err(corrupt)?;
        blocks.push(stored);
        expected = height + 1;
    }
    Ok(blocks)
}

/// The proposals stored above height `stored`, and the key for the next one.
fn read_proposals(
    db: &Database,
    path: &Path,
    stored: u64,
) -> Result<(Vec<SignedBlock>, u64), StoreError> {
    let txn = db.begin_read().map_err(|e| db_error(path, e))?;
    let table = txn.open_table(PROPOSALS).map_err(|e| db_error(path, e))?;
    let mut own = Vec::new();
    let mut next_seq = 0;
    for entry in table.iter().map_err(|e| db_error(path, e))? {
        let (key, bytes) = entry.map_err(|e| db_error(path, e))?;
        let (height, seq) = key.value();
        next_seq = next_seq.max(seq + 1);
        let block: SignedBlock = unseal(bytes.value()).map_err(|reason| StoreError::Corrupt {
            path: path.to_path_buf(),
            at: format!("proposal {seq} of height {height}"),
            reason,
        })?;
        if height > stored {
            own.push(block);
        }
    }
    Ok((own, next_seq))
}

/// The first height still stored (1 when nothing was pruned).
fn pruned_below(db: &Database, path: &Path) -> Result<u64, StoreError> {
    let txn = db.begin_read().map_err(|e| db_error(path, e))?;
    let table = match txn.open_table(META) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(1),
        Err(e) => return Err(db_error(path, e)),
    };
    let first = table.get(PRUNED_BELOW).map_err(|e| db_error(path, e))?;
    Ok(first.map_or(1, |v| v.value()).max(1))
}

/// The latest stored snapshot, checked.
fn latest_snapshot(db: &Database, path: &Path) -> Result<Option<StoredSnapshot>, StoreError> {
    let txn = db.begin_read().map_err(|e| db_error(path, e))?;
    let table = txn.open_table(SNAPSHOTS).map_err(|e| db_error(path, e))?;
    let Some((key, bytes)) = table.last().map_err(|e| db_error(path, e))? else {
        return Ok(None);
    };
    let height = key.value();
    let snapshot: StoredSnapshot = unseal(bytes.value())
        .and_then(|s: StoredSnapshot| {
            (s.height == height)
                .then_some(s)
                .ok_or_else(|| "it holds another height".to_string())
        })
        .map_err(|reason| StoreError::Corrupt {
            path: path.to_path_buf(),
            at: format!("the snapshot at height {height}"),
            reason,
        })?;
    Ok(Some(snapshot))
}

impl BlockStore {
    /// Stores `snapshot` (synced), forgets all but the latest snapshots, and with `retain_blocks` prunes the
    /// blocks more than that many heights below the snapshot, in one transaction. The snapshot's block must be
    /// stored already: a node starting from the snapshot goes on from the blocks after it.
    pub fn save_snapshot(
        &mut self,
        snapshot: &StoredSnapshot,
        retain_blocks: Option<u64>,
    ) -> Result<(), StoreError> {
        if snapshot.height > self.height() {
            return Err(StoreError::Io(
                self.path.clone(),
                format!(
                    "a snapshot at height {} is above the stored height {}",
                    snapshot.height,
                    self.height()
                ),
            ));
        }
        let path = &self.path;
        let e = |e: redb::Error| db_error(path, e);
        let txn = self.db.begin_write().map_err(|x| e(x.into()))?;
        {
            let mut snapshots = txn.open_table(SNAPSHOTS).map_err(|x| e(x.into()))?;
            snapshots
                .insert(snapshot.height, seal(snapshot).as_slice())
                .map_err(|x| e(x.into()))?;
            let heights: Vec<u64> = snapshots
                .iter()
                .map_err(|x| e(x.into()))?
                .map(|entry| entry.map(|(k, _)| k.value()))
                .collect::<Result<_, _>>()
                .map_err(|x| e(x.into()))?;
            let stale = heights.len().saturating_sub(SNAPSHOTS_KEPT);
            for height in heights.iter().take(stale) {
                snapshots.remove(*height).map_err(|x| e(x.into()))?;
            }
            if let Some(retain) = retain_blocks {
                let below = snapshot.height.saturating_sub(retain).max(1);
                let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
                let first = meta
                    .get(PRUNED_BELOW)
                    .map_err(|x| e(x.into()))?
                    .map_or(1, |v| v.value());
                if below > first {
                    let mut blocks = txn.open_table(BLOCKS).map_err(|x| e(x.into()))?;
                    blocks
                        .retain_in(..below, |_, _| false)
                        .map_err(|x| e(x.into()))?;
                    meta.insert(PRUNED_BELOW, below).map_err(|x| e(x.into()))?;
                }
            }
        }
        txn.commit().map_err(|x| e(x.into()))?;
        if let Some(retain) = retain_blocks {
            self.first = self
                .first
                .max(snapshot.height.saturating_sub(retain).max(1));
        }
        Ok(())
    }

    /// The heights of the stored snapshots, in order.
    fn snapshot_heights(&self) -> Result<Vec<u64>, StoreError> {
        let path = &self.path;
        let txn = self.db.begin_read().map_err(|e| db_error(path, e))?;
        let table = txn.open_table(SNAPSHOTS).map_err(|e| db_error(path, e))?;
        let keys = table.iter().map_err(|e| db_error(path, e))?;
        keys.map(|entry| entry.map(|(k, _)| k.value()))
            .collect::<Result<_, _>>()
            .map_err(|e| db_error(path, e))
    }

    /// The height of the latest snapshot this store can serve (0 for none), from the heights alone: the stored
    /// blocks run without a gap from the first height to the last, so the blocks at a snapshot's height and
    /// the one after are there when both are in that range.
    pub fn servable_height(&self) -> Result<u64, StoreError> {
        let heights = self.snapshot_heights()?;
        let servable = |h: &u64| *h >= self.first && h.saturating_add(1) <= self.height();
        Ok(heights.into_iter().rev().find(servable).unwrap_or(0))
    }

    /// The latest snapshot this store can serve to a peer, with the stored blocks that vouch for it: the block
    /// at its height and the one after (whose certificate covers the app hash after the snapshot's height).
    pub fn servable(
        &self,
    ) -> Result<Option<(StoredSnapshot, StoredBlock, StoredBlock)>, StoreError> {
        for height in self.snapshot_heights()?.into_iter().rev() {
            let (Some(block), Some(next)) =
                (self.get(height)?, self.get(height.saturating_add(1))?)
            else {
                continue;
            };
            let snapshot = self.snapshot_at(height)?;
            if let Some(snapshot) = snapshot {
                return Ok(Some((snapshot, block, next)));
            }
        }
        Ok(None)
    }

    /// The snapshot stored at `height`, checked.
    fn snapshot_at(&self, height: u64) -> Result<Option<StoredSnapshot>, StoreError> {
        let path = &self.path;
        let txn = self.db.begin_read().map_err(|e| db_error(path, e))?;
        let table = txn.open_table(SNAPSHOTS).map_err(|e| db_error(path, e))?;
        let Some(bytes) = table.get(height).map_err(|e| db_error(path, e))? else {
            return Ok(None);
        };
        let snapshot = unseal::<StoredSnapshot>(bytes.value())
            .and_then(|s| {
                (s.height == height)
                    .then_some(s)
                    .ok_or_else(|| "it holds another height".to_string())
            })
            .map_err(|reason| StoreError::Corrupt {
                path: path.clone(),
                at: format!("the snapshot at height {height}"),
                reason,
            })?;
        Ok(Some(snapshot))
    }

    /// Makes a peer's verified snapshot this node's history, in one synced transaction: every stored block,
    /// proposal and snapshot goes, `block` (the certified block at the snapshot's height, with the snapshot's
    /// app hash) and the snapshot are stored, and the history starts at the snapshot's height. The node then
    /// goes on from the blocks after it, as after a restart from its own snapshot.
    pub fn install(
        &mut self,
        block: StoredBlock,
        snapshot: &StoredSnapshot,
    ) -> Result<(), StoreError> {
        check_block(snapshot.height, &block)
            .map_err(|reason| StoreError::Io(self.path.clone(), reason))?;
        let path = &self.path;
        let e = |e: redb::Error| db_error(path, e);
        let txn = self.db.begin_write().map_err(|x| e(x.into()))?;
        {
            let mut blocks = txn.open_table(BLOCKS).map_err(|x| e(x.into()))?;
            blocks.retain(|_, _| false).map_err(|x| e(x.into()))?;
            blocks
                .insert(block.height, seal(&block).as_slice())
                .map_err(|x| e(x.into()))?;
            let mut proposals = txn.open_table(PROPOSALS).map_err(|x| e(x.into()))?;
            proposals.retain(|_, _| false).map_err(|x| e(x.into()))?;
            let mut snapshots = txn.open_table(SNAPSHOTS).map_err(|x| e(x.into()))?;
            snapshots.retain(|_, _| false).map_err(|x| e(x.into()))?;
            snapshots
                .insert(snapshot.height, seal(snapshot).as_slice())
                .map_err(|x| e(x.into()))?;
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            meta.insert(PRUNED_BELOW, snapshot.height)
                .map_err(|x| e(x.into()))?;
        }
        txn.commit().map_err(|x| e(x.into()))?;
        self.first = snapshot.height;
        self.last = Some(block);
        self.own.clear();
        Ok(())
    }
}
