//! What a running node shows its operator, both off unless configured: a Prometheus endpoint (`/metrics`: the
//! engine's own metrics registry, with this crate's metrics added to it under `fsmc_`) and a small JSON status
//! endpoint (`/status`: height, app hash, state, period, round, peers, whether it is catching up), in the
//! spirit of Tendermint's `/status`.
//!
//! [`Probe`] is what both sides of the node write into: the replica's thread (height, app hash, state, period)
//! and the engine side (round, mempool, peers, rejections, block apply time). The endpoints are bound before
//! the engine starts, so a busy port is an error at start rather than a silent absence.

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use malachitebft_app::metrics::prometheus::metrics::counter::Counter;
use malachitebft_app::metrics::prometheus::metrics::family::Family;
use malachitebft_app::metrics::prometheus::metrics::gauge::Gauge;
use malachitebft_app::metrics::prometheus::metrics::histogram::{Histogram, exponential_buckets};
use malachitebft_app::metrics::{SharedRegistry, export};

use crate::config::ConfigError;

type Labels = Vec<(String, String)>;

/// What `/status` answers.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Status {
    /// The node's moniker.
    pub moniker: String,
    /// The chain id.
    pub chain_id: String,
    /// The last height the replica applied (0 before the first block).
    pub height: u64,
    /// The app hash the replica reached there, in hex.
    pub app_hash: String,
    /// The app's state there.
    pub state: String,
    /// The app's period.
    pub period: u64,
    /// The engine's round at the height it works on.
    pub round: i64,
    /// How many peers the node is connected to.
    pub peers: usize,
    /// Whether the last block came by value sync from a peer (this node is behind) rather than by its own
    /// consensus.
    pub catching_up: bool,
}

/// The node's metrics and status, shared by the replica's thread and the engine side.
#[derive(Clone)]
pub struct Probe {
    height: Gauge,
    round: Gauge,
    period: Gauge,
    state: Family<Labels, Gauge>,
    rejections: Family<Labels, Counter>,
    apply_seconds: Histogram,
    mempool: Gauge,
    peers: Gauge<i64, AtomicI64>,
    status: Arc<Mutex<Status>>,
}

impl Probe {
    /// A probe for the node `moniker` on `chain_id`, its metrics registered in the engine's registry (the one
    /// the engine's own metrics are in: a process runs one node, so they are registered once).
    pub fn new(moniker: &str, chain_id: &str) -> Probe {
        let probe = Probe {
            height: Gauge::default(),
            round: Gauge::default(),
            period: Gauge::default(),
            state: Family::default(),
            rejections: Family::default(),
            apply_seconds: Histogram::new(exponential_buckets(0.000_1, 2.0, 16)),
            mempool: Gauge::default(),
            peers: Gauge::default(),
            status: Arc::new(Mutex::new(Status {
                moniker: moniker.to_owned(),
                chain_id: chain_id.to_owned(),
                round: -1,
                ..Status::default()
            })),
        };
        SharedRegistry::global()
            .with_moniker(moniker)
            .with_prefix("fsmc", |r| {
                r.register(
                    "height",
                    "The last height the replica applied",
                    probe.height.clone(),
                );
                r.register(
                    "round",
                    "The engine's round at the height it works on",
                    probe.round.clone(),
                );
                r.register("period", "The app's period", probe.period.clone());
                r.register(
                    "app_state",
                    "The app's state (1 for the current one)",
                    probe.state.clone(),
                );
                r.register(
                    "rejections",
                    "Transactions and proposals refused, by reason",
                    probe.rejections.clone(),
                );
                r.register(
                    "block_apply_seconds",
                    "How long the replica took to apply a decided block",
                    probe.apply_seconds.clone(),
                );
                r.register(
                    "mempool_size",
                    "Transactions waiting for a block",
                    probe.mempool.clone(),
                );
                r.register("peers", "Connected peers", probe.peers.clone());
            });
        probe
    }

    fn status(&self) -> std::sync::MutexGuard<'_, Status> {
        self.status.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The replica applied `height`, reaching `app_hash` in `state` at `period`.
    pub fn applied(&self, height: u64, app_hash: String, state: String, period: u64) {
        self.height.set(i64::try_from(height).unwrap_or(i64::MAX));
        self.period.set(i64::try_from(period).unwrap_or(i64::MAX));
        let mut status = self.status();
        if status.state != state {
            if !status.state.is_empty() {
                self.state
                    .get_or_create(&label("state", &status.state))
                    .set(0);
            }
            self.state.get_or_create(&label("state", &state)).set(1);
        }
        *status = Status {
            height,
            app_hash,
            state,
            period,
            ..status.clone()
        };
    }

    /// The engine started `round` of a height.
    pub fn round(&self, round: i64) {
        self.round.set(round);
        self.status().round = round;
    }

    /// A block was decided, by this node's consensus or (`synced`) fetched from a peer, and applied in `took`.
    pub fn decided(&self, synced: bool, took: Duration) {
        self.apply_seconds.observe(took.as_secs_f64());
        self.status().catching_up = synced;
    }

    /// Something was refused, for `reason` (a short snake-case name).
    pub fn rejected(&self, reason: &str) {
        self.rejected_by(reason, 1);
    }

    /// `n` things were refused, for `reason`.
    pub fn rejected_by(&self, reason: &str, n: usize) {
        self.rejections
            .get_or_create(&label("reason", reason))
            .inc_by(u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// The mempool holds `n` transactions.
    pub fn mempool(&self, n: usize) {
        self.mempool.set(i64::try_from(n).unwrap_or(i64::MAX));
    }

    /// The node is connected to `n` peers.
    pub fn peers(&self, n: usize) {
        self.peers.set(i64::try_from(n).unwrap_or(i64::MAX));
        self.status().peers = n;
    }

    /// The answer to `path` on an endpoint serving `routes`.
    fn answer(&self, routes: Routes, path: &str) -> Response<Full<Bytes>> {
        let (code, kind, body) = match path {
            "/metrics" if routes.metrics => {
                let mut text = String::new();
                export(&mut text);
                (
                    StatusCode::OK,
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                    text,
                )
            }
            "/status" if routes.status => {
                let text = serde_json::to_string(&*self.status()).unwrap_or_default();
                (StatusCode::OK, "application/json", text)
            }
            _ => (
                StatusCode::NOT_FOUND,
                "text/plain",
                "not found\n".to_owned(),
            ),
        };
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = code;
        if let Ok(value) = kind.parse() {
            response
                .headers_mut()
                .insert(hyper::header::CONTENT_TYPE, value);
        }
        response
    }
}

fn label(name: &str, value: &str) -> Labels {
    vec![(name.to_owned(), value.to_owned())]
}

/// Which paths one listener answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Routes {
    metrics: bool,
    status: bool,
}

/// An endpoint's address as configured: `PORT` (on 127.0.0.1) or `HOST:PORT`.
pub fn endpoint_addr(text: &str) -> Result<SocketAddr, ConfigError> {
    let text = text.trim();
    let full = if text.bytes().all(|b| b.is_ascii_digit()) {
        format!("127.0.0.1:{text}")
    } else {
        text.to_owned()
    };
    full.parse().map_err(|e| {
        ConfigError(format!(
            "{text:?} is not an endpoint address ({e}); write PORT (for 127.0.0.1) or IP:PORT, as 9100 or \
             0.0.0.0:9100"
        ))
    })
}

/// The listeners of the endpoints `metrics` and `status` configure (one when both name the same address),
/// bound now so that a busy port stops the node at start, naming the port.
pub(crate) fn bind(
    metrics: Option<&str>,
    status: Option<&str>,
    home: &Path,
) -> Result<Vec<(TcpListener, Routes)>, ConfigError> {
    let mut wanted: Vec<(SocketAddr, Routes)> = Vec::new();
    for (text, is_metrics) in [(metrics, true), (status, false)] {
        let Some(text) = text else { continue };
        let addr = endpoint_addr(text)?;
        let routes = match wanted.iter_mut().find(|(a, _)| *a == addr) {
            Some((_, routes)) => routes,
            None => {
                wanted.push((addr, Routes::default()));
                &mut wanted.last_mut().expect("just pushed").1
            }
        };
        if is_metrics {
            routes.metrics = true;
        } else {
            routes.status = true;
        }
    }
    wanted
        .into_iter()
        .map(|(addr, routes)| {
            let listener = TcpListener::bind(addr).map_err(|e| {
                ConfigError(format!(
                    "cannot open the {} endpoint of the node at {} on {addr}: {e}; choose another port in \
                     its config.json or with the `start` flag",
                    if routes.metrics { "metrics" } else { "status" },
                    home.display()
                ))
            })?;
            listener
                .set_nonblocking(true)
                .map_err(|e| ConfigError(format!("cannot listen on {addr}: {e}")))?;
            Ok((listener, routes))
        })
        .collect()
}

/// Answers HTTP/1 requests on `listener` until the runtime stops; a connection that fails is dropped alone.
pub(crate) async fn serve(listener: TcpListener, routes: Routes, probe: Probe) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        tracing::error!("the metrics and status endpoints could not start");
        return;
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let probe = probe.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let response = probe.answer(routes, request.uri().path());
                async move { Ok::<_, Infallible>(response) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_on_127_0_0_1_unless_an_address_says_otherwise() {
        assert_eq!(
            endpoint_addr("9100").map_err(|e| e.0),
            Ok("127.0.0.1:9100".parse().expect("addr"))
        );
        assert_eq!(
            endpoint_addr("0.0.0.0:9100").map_err(|e| e.0),
            Ok("0.0.0.0:9100".parse().expect("addr"))
        );
        let error = endpoint_addr("localhost:x").expect_err("refused").0;
        assert!(error.contains("write PORT"), "{error}");
    }

    #[test]
    fn one_address_for_both_endpoints_is_one_listener() {
        let home = Path::new("/h");
        assert!(bind(None, None, home).expect("none").is_empty());
        let both = bind(Some("127.0.0.1:0"), Some("127.0.0.1:0"), home).expect("bound");
        assert_eq!(both.len(), 1);
        assert_eq!(
            both[0].1,
            Routes {
                metrics: true,
                status: true
            }
        );
        let taken = both[0].0.local_addr().expect("addr").to_string();
        let error = bind(Some(&taken), None, home).expect_err("busy").0;
        assert!(
            error.contains("cannot open the metrics endpoint") && error.contains(&taken),
            "{error}"
        );
    }
}
