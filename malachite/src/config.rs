//! A node's home directory: its key, the genesis every node shares, and its own configuration; and the
//! generator that writes them for a local network of N nodes on 127.0.0.1.
//!
//! ```text
//! HOME/
//!   genesis.json      chain id, genesis time, the validators' public keys, the app's spec fingerprint
//!                     (identical on every node)
//!   node_key.json     this node's Ed25519 secret key (consensus, transactions and libp2p identity)
//!   config.json       moniker, agent index, listen address, peers, block interval, timeouts
//!   data/             the block store and the engine's write-ahead log
//! ```

use serde::{Deserialize, Serialize};
use std::fmt::{self, Display, Formatter};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use malachitebft_app::config::NodeConfig;
use malachitebft_config::{
    ConsensusConfig, DiscoveryConfig, P2pConfig, PubSubProtocol, ValuePayload, ValueSyncConfig,
};
use malachitebft_core_types::LinearTimeouts;

use crate::signing::{PrivateKey, PublicKey, hex, unhex};
use crate::types::{Validator, ValidatorSet};

/// A configuration problem: a file that cannot be read, written or understood.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl Display for ConfigError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Reads one of a home's JSON files; an error is one line that says what to do about it.
fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ConfigError> {
    let fix = match path.file_name().and_then(|n| n.to_str()) {
        Some("genesis.json") => "copy the network's genesis.json into this home",
        Some("node_key.json") => {
            "restore this node's key from its backup (a new key is another validator)"
        }
        Some("config.json") => {
            "fix it (the fields are listed in the engine adapter's README) or write a new one with `init`"
        }
        _ => "fix the file",
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("cannot read {}: {e}; {fix}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| ConfigError(format!("{} is not valid: {e}; {fix}", path.display())))
}

/// Writes `value` as pretty JSON to `path`.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), ConfigError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| ConfigError(format!("cannot encode {}: {e}", path.display())))?;
    std::fs::write(path, text + "\n")
        .map_err(|e| ConfigError(format!("cannot write {}: {e}", path.display())))
}

/// A node whose binary was built from another spec than the one its genesis names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecMismatch {
    /// The fingerprint the genesis names, in hex (`None`: a genesis written before fingerprints).
    pub genesis: Option<String>,
    /// The fingerprint of the binary's spec, in hex.
    pub binary: String,
}

impl Display for SpecMismatch {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.genesis {
            Some(genesis) => write!(
                f,
                "this node was built from another spec than its chain's: genesis.json names spec fingerprint \
                 {genesis}, this binary's is {}; start it with a build of the chain's spec (`fsmc diff` says \
                 what changed), or start a new chain from a genesis this binary writes",
                self.binary
            ),
            None => write!(
                f,
                "genesis.json names no spec fingerprint (it was written before nodes checked one); if this \
                 binary's spec is the one the chain ran, add \"spec_fingerprint\": \"{}\" to every node's \
                 genesis.json, otherwise start a new chain",
                self.binary
            ),
        }
    }
}

impl std::error::Error for SpecMismatch {}

/// What every node of a network agrees on before the first block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Genesis {
    /// Names the network; transactions are signed for it.
    pub chain_id: String,
    /// The app's start time, in milliseconds since the Unix epoch; the first block comes after it.
    pub genesis_time_ms: u64,
    /// The validators' public keys, in hex. The set is fixed: it never rotates.
    pub validators: Vec<String>,
    /// Periods of synchronized data each replica keeps.
    pub history_depth: usize,
    /// The spec fingerprint of the app the chain runs (the generated `FINGERPRINT`, in hex): a node whose
    /// binary was built from another spec refuses to start. Absent only from a genesis written before nodes
    /// checked it, which a node refuses too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_fingerprint: Option<String>,
}

impl Genesis {
    /// Reads `genesis.json`.
    pub fn load(path: &Path) -> Result<Genesis, ConfigError> {
        let genesis: Genesis = read_json(path)?;
        genesis
            .check()
            .map_err(|e| ConfigError(format!("{}: {e}", path.display())))?;
        Ok(genesis)
    }

    /// Checks what a node checks before it starts from this genesis: the validator set, the history depth and
    /// the form of the spec fingerprint.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.validator_set()?;
        if self.history_depth == 0 {
            return Err(ConfigError("history_depth must be at least 1".into()));
        }
        if let Some(text) = &self.spec_fingerprint
            && unhex(text).is_none_or(|b| b.len() != 32)
        {
            return Err(ConfigError(format!(
                "genesis: spec_fingerprint {text:?} is not 32 bytes of hex"
            )));
        }
        Ok(())
    }

    /// Checks that the chain runs the app whose spec fingerprint is `binary` (the node's own `S::FINGERPRINT`).
    /// Nothing else would catch a node built from another spec before its app hash diverged at some later
    /// height, so this is checked before the store is opened.
    pub fn check_spec(&self, binary: &[u8; 32]) -> Result<(), SpecMismatch> {
        let ours = hex(binary);
        match &self.spec_fingerprint {
            Some(theirs) if theirs.eq_ignore_ascii_case(&ours) => Ok(()),
            theirs => Err(SpecMismatch {
                genesis: theirs.clone(),
                binary: ours,
            }),
        }
    }

    /// The validator set, checked: at least one validator, every key 32 bytes of hex, no duplicate.
    pub fn validator_set(&self) -> Result<ValidatorSet, ConfigError> {
        let mut keys = Vec::new();
        for text in &self.validators {
            let key = unhex(text)
                .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
                .ok_or_else(|| {
                    ConfigError(format!("genesis: {text:?} is not a 32-byte hex public key"))
                })?;
            keys.push(PublicKey(key));
        }
        let set = ValidatorSet::new(keys.into_iter().map(Validator::new));
        if set.validators().is_empty() {
            return Err(ConfigError("genesis: no validators".into()));
        }
        if set.validators().len() != self.validators.len() {
            return Err(ConfigError("genesis: a validator is listed twice".into()));
        }
        Ok(set)
    }
}

/// The node's secret key file.
#[derive(Serialize, Deserialize)]
struct KeyFile {
    secret_key: String,
}

/// Reads `node_key.json`.
pub fn load_key(path: &Path) -> Result<PrivateKey, ConfigError> {
    let file: KeyFile = read_json(path)?;
    let bytes = unhex(&file.secret_key)
        .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
        .ok_or_else(|| ConfigError(format!("{}: not a 32-byte hex key", path.display())))?;
    Ok(PrivateKey::from_bytes(bytes))
}

/// Writes `node_key.json`, readable by its owner only.
pub fn save_key(path: &Path, key: &PrivateKey) -> Result<(), ConfigError> {
    write_json(
        path,
        &KeyFile {
            secret_key: hex(&key.to_bytes()),
        },
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| ConfigError(format!("cannot protect {}: {e}", path.display())))?;
    }
    Ok(())
}

/// One node's own settings (`config.json`). A field it does not know is an error, so that a misspelt setting
/// is not silently ignored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSettings {
    /// A human name for logs.
    pub moniker: String,
    /// Which agent of the app this node runs (its behaviour may depend on it).
    pub index: usize,
    /// Where it listens, as a libp2p multiaddress (`/ip4/127.0.0.1/tcp/PORT`).
    pub listen_addr: String,
    /// The other nodes' addresses; every one is dialled and kept connected.
    pub persistent_peers: Vec<String>,
    /// The least time a height takes (the engine's target time), in milliseconds: the pace of blocks. 0 for
    /// as fast as consensus goes.
    pub block_interval_ms: u64,
    /// How long a round waits for the proposal before voting nil.
    pub timeout_propose_ms: u64,
    /// How long a round waits for more prevotes once it has a quorum of any.
    pub timeout_prevote_ms: u64,
    /// How long a round waits for more precommits once it has a quorum of any.
    pub timeout_precommit_ms: u64,
    /// How often a node tells its peers its height, so a node behind learns it must sync.
    pub sync_status_interval_ms: u64,
    /// How far ahead of this node's clock a proposed block's time may be.
    pub max_clock_drift_ms: u64,
    /// How often this node's own transactions still waiting for a block are forwarded again.
    pub tx_resend_ms: u64,
    /// At block interval 0: the longest the node proposing the next height waits, after its replica applied a
    /// block, for the payloads of the round that block opened, so that the round can end in one height (it
    /// waits as long as those payloads have recently taken to arrive, up to this; 0: it does not wait).
    #[serde(default = "default_tx_wait_ms")]
    pub tx_wait_ms: u64,
    /// The most transactions of one sender waiting in this node's mempool; more from it are dropped until
    /// some are committed or expire, so one validator cannot fill the mempool for all.
    #[serde(default = "default_mempool_per_sender")]
    pub mempool_per_sender: usize,
    /// How many heights a transaction may wait in the mempool before it is dropped (a payload for a round
    /// that has long ended would only be rejected by the app).
    #[serde(default = "default_tx_ttl_heights")]
    pub tx_ttl_heights: u64,
    /// Every how many heights the node stores its replica's state, to start from the latest one instead of
    /// replaying every block (0: never).
    #[serde(default = "default_snapshot_interval")]
    pub snapshot_interval: u64,
    /// How many blocks below its latest snapshot the node keeps; older ones are pruned. Absent: every block is
    /// kept (a node that prunes cannot serve the pruned blocks to a peer catching up from far behind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retain_blocks: Option<u64>,
    /// Where the Prometheus endpoint (`/metrics`) listens: `PORT` (on 127.0.0.1) or `IP:PORT`; none when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_addr: Option<String>,
    /// Where the status endpoint (`/status`) listens, as `metrics_addr`; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_addr: Option<String>,
}

fn default_tx_wait_ms() -> u64 {
    NodeSettings::DEFAULT_TX_WAIT_MS
}

fn default_mempool_per_sender() -> usize {
    NodeSettings::DEFAULT_MEMPOOL_PER_SENDER
}

fn default_tx_ttl_heights() -> u64 {
    NodeSettings::DEFAULT_TX_TTL_HEIGHTS
}

fn default_snapshot_interval() -> u64 {
    NodeSettings::DEFAULT_SNAPSHOT_INTERVAL
}

impl NodeSettings {
    /// The longest the next proposer waits by default for a new round's payloads at block interval 0: time
    /// enough for a payload to cross the loopback interface and the engine on a busy machine (on an idle one,
    /// what it learns to wait is 2–4 ms).
    pub const DEFAULT_TX_WAIT_MS: u64 = 20;
    /// An app's agent has at most a payload or two in flight per round: a thousand is far beyond an honest
    /// sender and far below the mempool's capacity.
    pub const DEFAULT_MEMPOOL_PER_SENDER: usize = 1_000;
    /// A hundred heights: many rounds at block interval 0, a minute at half-second blocks.
    pub const DEFAULT_TX_TTL_HEIGHTS: u64 = 100;
    /// A snapshot every hundred heights: a restart replays at most a hundred blocks.
    pub const DEFAULT_SNAPSHOT_INTERVAL: u64 = 100;

    /// Settings for node `index` listening on `port`, with the given peers and pace.
    pub fn local(index: usize, port: u16, peers: Vec<String>, block_interval_ms: u64) -> Self {
        NodeSettings {
            moniker: format!("node-{index}"),
            index,
            listen_addr: multiaddr(port),
            persistent_peers: peers,
            block_interval_ms,
            timeout_propose_ms: 1_000,
            timeout_prevote_ms: 300,
            timeout_precommit_ms: 300,
            sync_status_interval_ms: 500,
            max_clock_drift_ms: 2_000,
            tx_resend_ms: 1_000,
            tx_wait_ms: default_tx_wait_ms(),
            mempool_per_sender: default_mempool_per_sender(),
            tx_ttl_heights: default_tx_ttl_heights(),
            snapshot_interval: default_snapshot_interval(),
            retain_blocks: None,
            metrics_addr: None,
            status_addr: None,
        }
    }

    /// Checks what `serde` cannot: bounds that would make the node useless. (The endpoint addresses are
    /// checked where they are bound, since a `start` flag may replace them.)
    pub fn check(&self) -> Result<(), ConfigError> {
        let useless = if self.mempool_per_sender == 0 {
            "mempool_per_sender is 0: no transaction would be taken"
        } else if self.tx_ttl_heights == 0 {
            "tx_ttl_heights is 0: every transaction would expire at once"
        } else {
            return Ok(());
        };
        Err(ConfigError(format!("{useless}; remove it for the default")))
    }

    /// The engine's timeouts.
    pub fn timeouts(&self) -> LinearTimeouts {
        let ms = Duration::from_millis;
        let propose = ms(self.timeout_propose_ms);
        let prevote = ms(self.timeout_prevote_ms);
        let precommit = ms(self.timeout_precommit_ms);
        LinearTimeouts {
            propose,
            propose_delta: propose / 4,
            prevote,
            prevote_delta: prevote / 4,
            precommit,
            precommit_delta: precommit / 4,
            rebroadcast: propose + prevote + precommit,
            max_timeout: Duration::from_secs(30),
        }
    }

    /// The engine's configuration.
    pub fn engine_config(&self) -> Result<EngineConfig, ConfigError> {
        let parse = |text: &str| {
            text.parse()
                .map_err(|e| ConfigError(format!("{text:?} is not a multiaddress: {e}")))
        };
        let p2p = P2pConfig {
            listen_addr: parse(&self.listen_addr)?,
            persistent_peers: self
                .persistent_peers
                .iter()
                .map(|p| parse(p))
                .collect::<Result<_, _>>()?,
            persistent_peers_only: false,
            discovery: DiscoveryConfig {
                enabled: false,
                // Every peer is on 127.0.0.1: a per-address connection limit would count them all as one.
                max_connections_per_ip: 1_000,
                ..DiscoveryConfig::default()
            },
            protocol: PubSubProtocol::default(),
            ..P2pConfig::default()
        };
        Ok(EngineConfig {
            moniker: self.moniker.clone(),
            consensus: ConsensusConfig {
                p2p,
                value_payload: ValuePayload::ProposalAndParts,
                ..ConsensusConfig::default()
            },
            value_sync: ValueSyncConfig {
                enabled: true,
                status_update_interval: Duration::from_millis(self.sync_status_interval_ms.max(50)),
                request_timeout: Duration::from_secs(5),
                ..ValueSyncConfig::default()
            },
        })
    }
}

/// `/ip4/127.0.0.1/tcp/PORT`.
pub fn multiaddr(port: u16) -> String {
    format!("/ip4/127.0.0.1/tcp/{port}")
}

/// The engine's view of a node's configuration.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    moniker: String,
    consensus: ConsensusConfig,
    value_sync: ValueSyncConfig,
}

impl NodeConfig for EngineConfig {
    fn moniker(&self) -> &str {
        &self.moniker
    }

    fn consensus(&self) -> &ConsensusConfig {
        &self.consensus
    }

    fn consensus_mut(&mut self) -> &mut ConsensusConfig {
        &mut self.consensus
    }

    fn value_sync(&self) -> &ValueSyncConfig {
        &self.value_sync
    }

    fn value_sync_mut(&mut self) -> &mut ValueSyncConfig {
        &mut self.value_sync
    }
}

/// Everything in a node's home directory.
#[derive(Clone, Debug)]
pub struct Home {
    /// The directory.
    pub dir: PathBuf,
    /// The shared genesis.
    pub genesis: Genesis,
    /// This node's key.
    pub key: PrivateKey,
    /// This node's settings.
    pub settings: NodeSettings,
}

impl Home {
    /// Reads a home directory.
    pub fn load(dir: &Path) -> Result<Home, ConfigError> {
        let genesis = Genesis::load(&dir.join("genesis.json"))?;
        let key = load_key(&dir.join("node_key.json"))?;
        let config = dir.join("config.json");
        let settings: NodeSettings = read_json(&config)?;
        settings
            .check()
            .map_err(|e| ConfigError(format!("{}: {e}", config.display())))?;
        let me = key.public_key();
        if genesis.validator_set()?.get(&me.address()).is_none() {
            return Err(ConfigError(format!(
                "{}: this node's key is not one of the genesis validators",
                dir.display()
            )));
        }
        Ok(Home {
            dir: dir.to_path_buf(),
            genesis,
            key,
            settings,
        })
    }

    /// Where the block store and the write-ahead log live.
    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The app's agents: the genesis validators' addresses, in the validator set's order.
    pub fn agents(&self) -> Result<Vec<String>, ConfigError> {
        Ok(self
            .genesis
            .validator_set()?
            .validators()
            .iter()
            .map(|v| v.address.to_string())
            .collect())
    }
}

/// How to lay out a local network.
#[derive(Clone, Debug)]
pub struct TestnetOptions {
    /// How many nodes.
    pub nodes: usize,
    /// The chain id.
    pub chain_id: String,
    /// The pace of blocks, in milliseconds.
    pub block_interval_ms: u64,
    /// The proposal timeout, in milliseconds.
    pub timeout_propose_ms: u64,
    /// At block interval 0, the longest the next proposer waits for a new round's payloads, in milliseconds.
    pub tx_wait_ms: u64,
    /// The first port, or `None` to ask the operating system for free ones.
    pub base_port: Option<u16>,
    /// The spec fingerprint of the app the nodes run (its generated `FINGERPRINT`), written into the genesis.
    pub spec_fingerprint: [u8; 32],
    /// The hosts the nodes run on, one per node, as `HOST` or `HOST:PORT` (an IPv4 address, `[IPv6]` or a
    /// DNS name; the port defaults to `base_port`, or [`TestnetOptions::HOST_PORT`]); empty for a network on
    /// 127.0.0.1, whose size is `nodes`.
    pub hosts: Vec<String>,
    /// With `hosts`: every node listens on all its interfaces (`0.0.0.0`) rather than on its host's own
    /// address (a name is always listened for on all interfaces: a node cannot listen on a name).
    pub listen_any: bool,
}

impl TestnetOptions {
    /// `nodes` nodes of the app whose spec fingerprint is `spec_fingerprint`, with half-second blocks on free
    /// ports.
    pub fn new(nodes: usize, spec_fingerprint: [u8; 32]) -> Self {
        TestnetOptions {
            nodes,
            chain_id: "fsmc-local".into(),
            block_interval_ms: 500,
            timeout_propose_ms: 1_000,
            tx_wait_ms: NodeSettings::DEFAULT_TX_WAIT_MS,
            base_port: None,
            spec_fingerprint,
            hosts: Vec::new(),
            listen_any: false,
        }
    }

    /// The port of a node on a host of its own when neither its host entry nor `base_port` names one.
    pub const HOST_PORT: u16 = 27_000;
}

/// Where one node listens and how the others dial it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    listen: String,
    dial: String,
}

/// One entry of a hosts list (`HOST` or `HOST:PORT`), as the multiaddress peers dial and the one the node
/// listens on.
fn host_place(entry: &str, default_port: u16, listen_any: bool) -> Result<Place, ConfigError> {
    let entry = entry.trim();
    let bad = |why: &str| {
        ConfigError(format!(
            "host {entry:?}: {why}; write HOST or HOST:PORT, as 10.0.0.5, 10.0.0.5:27000, node-a.example:27000 \
             or [fd00::5]:27000"
        ))
    };
    let (host, port) = if let Some(rest) = entry.strip_prefix('[') {
        let (ip, tail) = rest.split_once(']').ok_or_else(|| bad("no closing ]"))?;
        (ip, tail.strip_prefix(':'))
    } else {
        match entry.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') => (host, Some(port)),
            _ => (entry, None),
        }
    };
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| bad("the port is not a number up to 65535"))?,
        None => default_port,
    };
    if host.is_empty() || host.contains(['/', ' ']) {
        return Err(bad("no host name or address"));
    }
    let (dial, own) = match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => (
            format!("/ip4/{ip}/tcp/{port}"),
            Some(format!("/ip4/{ip}/tcp/{port}")),
        ),
        Ok(std::net::IpAddr::V6(ip)) => (
            format!("/ip6/{ip}/tcp/{port}"),
            Some(format!("/ip6/{ip}/tcp/{port}")),
        ),
        Err(_) if entry.starts_with('[') => return Err(bad("not an IPv6 address")),
        Err(_) => (format!("/dns/{host}/tcp/{port}"), None),
    };
    let any = if dial.starts_with("/ip6/") {
        "/ip6/::"
    } else {
        "/ip4/0.0.0.0"
    };
    let listen = match own {
        Some(own) if !listen_any => own,
        _ => format!("{any}/tcp/{port}"),
    };
    Ok(Place { listen, dial })
}

/// Where each node of the network `options` lays out listens and is dialled.
fn places(options: &TestnetOptions) -> Result<Vec<Place>, ConfigError> {
    if !options.hosts.is_empty() {
        let port = options.base_port.unwrap_or(TestnetOptions::HOST_PORT);
        let places = options
            .hosts
            .iter()
            .map(|h| host_place(h, port, options.listen_any))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, place) in places.iter().enumerate() {
            if places[..i].iter().any(|p| p.dial == place.dial) {
                return Err(ConfigError(format!(
                    "{} is listed twice among the hosts; give each node on one host its own port",
                    place.dial
                )));
            }
        }
        return Ok(places);
    }
    let ports = match options.base_port {
        Some(base) => (0..options.nodes)
            .map(|i| {
                u16::try_from(i)
                    .ok()
                    .and_then(|i| base.checked_add(i))
                    .ok_or_else(|| ConfigError(format!("port {base} + {i} is out of range")))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => free_ports(options.nodes)?,
    };
    Ok(ports
        .into_iter()
        .map(|p| Place {
            listen: multiaddr(p),
            dial: multiaddr(p),
        })
        .collect())
}

/// Ports on 127.0.0.1 that nothing listens on right now, as the operating system hands them out (so parallel
/// runs do not pick the same ones).
pub fn free_ports(n: usize) -> Result<Vec<u16>, ConfigError> {
    // Hold every listener until all are chosen, so the same port is not handed out twice.
    let listeners = (0..n)
        .map(|_| TcpListener::bind(("127.0.0.1", 0)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ConfigError(format!("cannot find a free port: {e}")))?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<_, _>>()
        .map_err(|e| ConfigError(format!("cannot find a free port: {e}")))
}

/// The current time in milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Writes keys, one genesis and configurations for a network into `dir/node-0`, `dir/node-1`, …: of `nodes`
/// nodes on 127.0.0.1, or of one node per host of `hosts` (copy `dir/node-I` to host I); returns the home
/// directories.
pub fn write_testnet(dir: &Path, options: &TestnetOptions) -> Result<Vec<PathBuf>, ConfigError> {
    if options.nodes == 0 && options.hosts.is_empty() {
        return Err(ConfigError("a network needs at least one node".into()));
    }
    let places = places(options)?;
    let keys = (0..places.len())
        .map(|_| PrivateKey::generate())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ConfigError(format!("no randomness for keys: {e}")))?;
    let genesis = Genesis {
        chain_id: options.chain_id.clone(),
        genesis_time_ms: now_ms(),
        validators: keys.iter().map(|k| hex(&k.public_key().0)).collect(),
        history_depth: 3,
        spec_fingerprint: Some(hex(&options.spec_fingerprint)),
    };
    for i in 0..places.len() {
        let home = dir.join(format!("node-{i}"));
        // A home holding another network's store would refuse to start: never mix two networks.
        if home.exists() {
            return Err(ConfigError(format!(
                "{} already exists; choose an empty directory",
                home.display()
            )));
        }
    }
    let mut homes = Vec::new();
    for (i, (key, place)) in keys.iter().zip(&places).enumerate() {
        let home = dir.join(format!("node-{i}"));
        std::fs::create_dir_all(&home)
            .map_err(|e| ConfigError(format!("cannot create {}: {e}", home.display())))?;
        let peers = places
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, p)| p.dial.clone())
            .collect();
        let mut settings = NodeSettings::local(i, 0, peers, options.block_interval_ms);
        settings.listen_addr.clone_from(&place.listen);
        settings.timeout_propose_ms = options.timeout_propose_ms;
        settings.tx_wait_ms = options.tx_wait_ms;
        write_json(&home.join("genesis.json"), &genesis)?;
        save_key(&home.join("node_key.json"), key)?;
        write_json(&home.join("config.json"), &settings)?;
        homes.push(home);
    }
    Ok(homes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_entry_is_dialled_at_its_address_and_listened_on_there_or_everywhere() {
        let place = |entry: &str, any: bool| host_place(entry, 27_000, any).map_err(|e| e.0);
        let p = |listen: &str, dial: &str| {
            Ok(Place {
                listen: listen.into(),
                dial: dial.into(),
            })
        };
        assert_eq!(
            place("10.0.0.5", false),
            p("/ip4/10.0.0.5/tcp/27000", "/ip4/10.0.0.5/tcp/27000")
        );
        assert_eq!(
            place("10.0.0.5:9", true),
            p("/ip4/0.0.0.0/tcp/9", "/ip4/10.0.0.5/tcp/9")
        );
        assert_eq!(
            place("node-a.example", false),
            p("/ip4/0.0.0.0/tcp/27000", "/dns/node-a.example/tcp/27000")
        );
        assert_eq!(
            place("[fd00::5]:7", false),
            p("/ip6/fd00::5/tcp/7", "/ip6/fd00::5/tcp/7")
        );
        for bad in ["10.0.0.5:port", "", "[fd00::5", "[name]:1", "a/b"] {
            let error = place(bad, false).expect_err(bad);
            assert!(error.contains("write HOST or HOST:PORT"), "{error}");
        }
    }

    #[test]
    fn a_network_on_hosts_names_their_addresses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = TestnetOptions {
            hosts: vec![
                "10.0.0.1".into(),
                "10.0.0.2:1234".into(),
                "b.example".into(),
            ],
            ..TestnetOptions::new(0, [1; 32])
        };
        let homes = write_testnet(dir.path(), &options).expect("written");
        assert_eq!(homes.len(), 3);
        let settings: Vec<NodeSettings> = homes
            .iter()
            .map(|h| Home::load(h).expect("home").settings)
            .collect();
        assert_eq!(settings[0].listen_addr, "/ip4/10.0.0.1/tcp/27000");
        assert_eq!(
            settings[0].persistent_peers,
            ["/ip4/10.0.0.2/tcp/1234", "/dns/b.example/tcp/27000"]
        );
        assert_eq!(settings[2].listen_addr, "/ip4/0.0.0.0/tcp/27000");
        for s in &settings {
            s.engine_config().expect("the engine takes it");
        }
        let twice = TestnetOptions {
            hosts: vec!["10.0.0.1".into(), "10.0.0.1:27000".into()],
            ..TestnetOptions::new(0, [1; 32])
        };
        let error = write_testnet(&dir.path().join("again"), &twice)
            .expect_err("refused")
            .0;
        assert!(error.contains("listed twice"), "{error}");
    }
}
