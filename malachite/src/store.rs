//! The durable block store: every decided block with its commit certificate and the app hash the replica
//! reached after applying it, one record per height, appended and synced to disk before the engine is told the
//! decision is committed.
//!
//! File format (`blocks.dat`): the 8-byte magic `FSMCBLK1`, then one record per height from 1 up, each
//! `[payload length: u32 LE][SHA-256 of the payload: 32 bytes][payload]`, the payload being the Borsh encoding
//! of a [`StoredBlock`]. Opening the store checks every record (checksum, encoding, consecutive heights, the
//! certificate naming the block) and refuses a damaged file with [`StoreError::Corrupt`]. The one exception
//! is an incomplete last record: a write cut short by a crash before it was synced and acknowledged, so
//! nothing it held was ever reported committed. It is cut off, with a warning. A record whose length field
//! runs past the end of the file while its bytes hold a whole record (its checksum matches a shorter payload)
//! is not such a write but a damaged length field, and is refused: cutting there would drop every height
//! after it.
//!
//! Beside it, `proposals.dat` holds the proposals seen at recent heights, this node's own included (same
//! framing, payload a [`SignedBlock`]); only those above the stored height count. A proposer that crashes and
//! restarts proposes the very same block again for the same round instead of equivocating, and a node that
//! restarts in the middle of a height still holds the value the engine's own log may decide. Only this node's
//! own proposals are synced to disk (each sync also makes every record before it durable): a proposal received
//! from another node is lost only with the machine, and then value sync fetches the block again. So the last
//! record may also be one whose bytes never reached the disk whole (its checksum fails): it is cut off, with a
//! warning, as a cut-short one is. The file is emptied (and synced) once it holds [`PROPOSALS_KEPT`] records,
//! not at every height, which keeps a sync off the path of every decision.

use borsh::{BorshDeserialize, BorshSerialize};
use sha2::{Digest, Sha256};
use std::fmt::{self, Display, Formatter};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use malachitebft_core_types::{CommitCertificate, Round};

use crate::types::{Address, BlockValue, FsmcContext, Height, SignedBlock};

const MAGIC: &[u8; 8] = b"FSMCBLK1";
const HEADER: u64 = 4 + 32;
/// No record comes near this; a larger length field is damage, not data.
const MAX_RECORD: u64 = 64 << 20;
/// How many records `proposals.dat` holds before it is emptied: proposals of many past heights, all stale.
pub const PROPOSALS_KEPT: usize = 256;

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
    /// The file system refused.
    Io(PathBuf, std::io::Error),
    /// The file is damaged: the node must not go on from it.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Where the bad record starts.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
}

impl Display for StoreError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(path, e) => write!(f, "block store {}: {e}", path.display()),
            Self::Corrupt {
                path,
                offset,
                reason,
            } => write!(
                f,
                "block store {} is corrupt at byte {offset}: {reason}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// An append-only file of checksummed records.
struct RecordFile {
    path: PathBuf,
    file: File,
    /// The offset of every record.
    offsets: Vec<u64>,
    end: u64,
}

impl RecordFile {
    /// Opens (or creates) the file and reads every record, handing each payload to `check`.
    /// Read-only (`writable` false), a missing file reads as empty and nothing is repaired. With `unsynced_tail`,
    /// a last record whose checksum fails is cut off as a cut-short one is (a file whose last records may not
    /// have been synced).
    fn open(
        path: &Path,
        writable: bool,
        unsynced_tail: bool,
        mut check: impl FnMut(usize, &[u8]) -> Result<(), String>,
    ) -> Result<(RecordFile, Vec<String>), StoreError> {
        let io = |e| StoreError::Io(path.to_path_buf(), e);
        let mut file = OpenOptions::new()
            .read(true)
            .write(writable)
            .create(writable)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let corrupt = |offset: u64, reason: String| StoreError::Corrupt {
            path: path.to_path_buf(),
            offset,
            reason,
        };
        let mut warnings = Vec::new();
        if bytes.is_empty() {
            if writable {
                file.write_all(MAGIC).map_err(io)?;
                file.sync_all().map_err(io)?;
            }
            return Ok((
                RecordFile {
                    path: path.to_path_buf(),
                    file,
                    offsets: Vec::new(),
                    end: MAGIC.len() as u64,
                },
                warnings,
            ));
        }
        if bytes.get(..MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(corrupt(0, "not a block store (bad magic)".into()));
        }
        let mut offsets = Vec::new();
        let mut at = MAGIC.len();
        while at < bytes.len() {
            let offset = at as u64;
            let rest = bytes.get(at..).unwrap_or_default();
            let Some(len) = rest
                .get(..4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map(|b| u64::from(u32::from_le_bytes(b)))
            else {
                warnings.push(format!(
                    "dropped an incomplete last record at byte {offset} (a write cut short)"
                ));
                break;
            };
            if len > MAX_RECORD {
                return Err(corrupt(
                    offset,
                    format!("record length {len} is implausible"),
                ));
            }
            let total = usize::try_from(HEADER + len).unwrap_or(usize::MAX);
            let Some(record) = rest.get(..total) else {
                // A record that runs past the end is a write cut short, unless a whole record is there and
                // only its length field says otherwise: then cutting it would drop acknowledged heights.
                if let Some(whole) = whole_record_within(rest) {
                    return Err(corrupt(
                        offset,
                        format!(
                            "its length field says {len} bytes, past the end of the file, but a whole \
                             record of {whole} bytes is there: the length field is damaged"
                        ),
                    ));
                }
                warnings.push(format!(
                    "dropped an incomplete last record at byte {offset} (a write cut short)"
                ));
                break;
            };
            let sum = record.get(4..HEADER as usize).unwrap_or_default();
            let payload = record.get(HEADER as usize..).unwrap_or_default();
            if Sha256::digest(payload).as_slice() != sum {
                if unsynced_tail && at + total == bytes.len() {
                    warnings.push(format!(
                        "dropped an unsynced last record at byte {offset} (its checksum fails)"
                    ));
                    break;
                }
                return Err(corrupt(offset, "checksum mismatch".into()));
            }
            check(offsets.len(), payload).map_err(|reason| corrupt(offset, reason))?;
            offsets.push(offset);
            at += total;
        }
        let end = at as u64;
        if writable && end < bytes.len() as u64 {
            file.set_len(end).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        Ok((
            RecordFile {
                path: path.to_path_buf(),
                file,
                offsets,
                end,
            },
            warnings,
        ))
    }

    /// Appends a record; with `sync`, it (and every record before it) is on disk when this returns.
    fn append(&mut self, payload: &[u8], sync: bool) -> Result<(), StoreError> {
        let io = |e| StoreError::Io(self.path.clone(), e);
        let len = u32::try_from(payload.len()).map_err(|_| {
            StoreError::Io(self.path.clone(), std::io::Error::other("record too large"))
        })?;
        let mut record = Vec::with_capacity(payload.len() + HEADER as usize);
        record.extend_from_slice(&len.to_le_bytes());
        record.extend_from_slice(&Sha256::digest(payload));
        record.extend_from_slice(payload);
        self.file.seek(SeekFrom::Start(self.end)).map_err(io)?;
        // One write of the whole record, then a sync: the record is durable before anyone is told.
        self.file.write_all(&record).map_err(io)?;
        if sync {
            self.file.sync_data().map_err(io)?;
        }
        self.offsets.push(self.end);
        self.end += record.len() as u64;
        Ok(())
    }

    fn read(&mut self, index: usize) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(&offset) = self.offsets.get(index) else {
            return Ok(None);
        };
        let io = |e| StoreError::Io(self.path.clone(), e);
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let mut header = [0u8; HEADER as usize];
        self.file.read_exact(&mut header).map_err(io)?;
        let len = header
            .get(..4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_le_bytes);
        if u64::from(len) > MAX_RECORD {
            return Err(StoreError::Corrupt {
                path: self.path.clone(),
                offset,
                reason: format!(
                    "record length {len} is implausible (the file changed under the node)"
                ),
            });
        }
        let mut payload = vec![0; len as usize];
        self.file.read_exact(&mut payload).map_err(io)?;
        if Sha256::digest(&payload).as_slice() != header.get(4..).unwrap_or_default() {
            return Err(StoreError::Corrupt {
                path: self.path.clone(),
                offset,
                reason: "checksum mismatch (the file changed under the node)".into(),
            });
        }
        Ok(Some(payload))
    }

    fn clear(&mut self) -> Result<(), StoreError> {
        let io = |e| StoreError::Io(self.path.clone(), e);
        if self.offsets.is_empty() {
            return Ok(());
        }
        self.file.set_len(MAGIC.len() as u64).map_err(io)?;
        self.file.sync_all().map_err(io)?;
        self.offsets.clear();
        self.end = MAGIC.len() as u64;
        Ok(())
    }
}

/// The payload length at which the record at the start of `rest` (whose length field runs past the end)
/// matches its own checksum, if any: a record written whole, whose length field was damaged since. A write cut
/// short holds only part of its payload, which never matches the checksum of the whole.
fn whole_record_within(rest: &[u8]) -> Option<usize> {
    let sum = rest.get(4..HEADER as usize)?;
    let body = rest.get(HEADER as usize..)?;
    let mut hasher = Sha256::new();
    for (i, byte) in body.iter().enumerate() {
        hasher.update([*byte]);
        if hasher.clone().finalize().as_slice() == sum {
            return Some(i + 1);
        }
    }
    None
}

/// The decided blocks of one node, and the proposals it made at the current height.
pub struct BlockStore {
    blocks: RecordFile,
    proposals: RecordFile,
    /// The proposals recorded at the current height.
    own: Vec<SignedBlock>,
    last: Option<StoredBlock>,
}

/// What opening the store found.
pub struct Opened {
    /// The store.
    pub store: BlockStore,
    /// Every stored block, in height order, to replay.
    pub blocks: Vec<StoredBlock>,
    /// Anything recovered from (an incomplete last record).
    pub warnings: Vec<String>,
}

impl BlockStore {
    /// Opens the store in `dir` (creating it if needed), checking every record.
    pub fn open(dir: &Path) -> Result<Opened, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Io(dir.to_path_buf(), e))?;
        let (block_file, mut warnings, blocks) = Self::open_blocks(dir, true)?;
        let mut own = Vec::new();
        let (proposals, more) =
            RecordFile::open(&dir.join("proposals.dat"), true, true, |i, payload| {
                let entry: SignedBlock = borsh::from_slice(payload)
                    .map_err(|e| format!("proposal record {} does not decode: {e}", i + 1))?;
                own.push(entry);
                Ok(())
            })?;
        warnings.extend(more);
        let last = blocks.last().cloned();
        let stored = last.as_ref().map_or(0, |b| b.height);
        own.retain(|p| p.height.0 > stored);
        Ok(Opened {
            store: BlockStore {
                blocks: block_file,
                proposals,
                own,
                last,
            },
            blocks,
            warnings,
        })
    }

    /// Reads and checks the stored blocks without changing anything (a node may be running on the store).
    pub fn read(dir: &Path) -> Result<Vec<StoredBlock>, StoreError> {
        let path = dir.join("blocks.dat");
        if !path.exists() {
            return Ok(Vec::new());
        }
        Ok(Self::open_blocks(dir, false)?.2)
    }

    fn open_blocks(
        dir: &Path,
        writable: bool,
    ) -> Result<(RecordFile, Vec<String>, Vec<StoredBlock>), StoreError> {
        let mut blocks = Vec::new();
        let (file, warnings) =
            RecordFile::open(&dir.join("blocks.dat"), writable, false, |i, payload| {
                let stored: StoredBlock = borsh::from_slice(payload)
                    .map_err(|e| format!("record {} does not decode: {e}", i + 1))?;
                let expected = u64::try_from(i).unwrap_or(u64::MAX).saturating_add(1);
                if stored.height != expected {
                    return Err(format!(
                        "record {} is for height {}, expected {expected}",
                        i + 1,
                        stored.height
                    ));
                }
                if stored.value.height != stored.height
                    || stored.certificate.height != Height(stored.height)
                    || stored.certificate.value_id != stored.value.id_bytes()
                {
                    return Err(format!(
                        "the block at height {} does not match its certificate",
                        stored.height
                    ));
                }
                blocks.push(stored);
                Ok(())
            })?;
        Ok((file, warnings, blocks))
    }

    /// The height of the last stored block (0 if none).
    pub fn height(&self) -> u64 {
        self.last.as_ref().map_or(0, |b| b.height)
    }

    /// The last stored block.
    pub fn last(&self) -> Option<&StoredBlock> {
        self.last.as_ref()
    }

    /// Appends the next height durably, and forgets the proposals up to it; empties the proposals' file once
    /// it holds [`PROPOSALS_KEPT`] records.
    pub fn append(&mut self, block: StoredBlock) -> Result<(), StoreError> {
        let payload =
            borsh::to_vec(&block).map_err(|e| StoreError::Io(self.blocks.path.clone(), e))?;
        self.blocks.append(&payload, true)?;
        let height = block.height;
        self.last = Some(block);
        self.own.retain(|p| p.height.0 > height);
        if self.proposals.offsets.len() >= PROPOSALS_KEPT {
            self.proposals.clear()?;
            // Proposals above the stored height are still needed: written again, synced.
            for part in self.own.clone() {
                self.save_proposal_record(&part, true)?;
            }
        }
        Ok(())
    }

    /// The block stored at `height`.
    pub fn get(&mut self, height: u64) -> Result<Option<StoredBlock>, StoreError> {
        let Some(index) = height.checked_sub(1).and_then(|i| usize::try_from(i).ok()) else {
            return Ok(None);
        };
        let Some(payload) = self.blocks.read(index)? else {
            return Ok(None);
        };
        borsh::from_slice(&payload)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: self.blocks.path.clone(),
                offset: 0,
                reason: format!("the record of height {height} does not decode: {e}"),
            })
    }

    /// Records a proposal seen (or made) above the stored height; `durable` (this node's own proposal) syncs
    /// it to disk before returning.
    pub fn save_proposal(&mut self, block: SignedBlock, durable: bool) -> Result<(), StoreError> {
        self.save_proposal_record(&block, durable)?;
        self.own.push(block);
        Ok(())
    }

    fn save_proposal_record(&mut self, block: &SignedBlock, sync: bool) -> Result<(), StoreError> {
        let payload =
            borsh::to_vec(block).map_err(|e| StoreError::Io(self.proposals.path.clone(), e))?;
        self.proposals.append(&payload, sync)
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
