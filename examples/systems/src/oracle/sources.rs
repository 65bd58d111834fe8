//! Price sources over real HTTP: small servers on 127.0.0.1 that quote the market (one answers at once, one
//! slowly, one fails with a 5xx), and the client an agent fetches its observation with.
//!
//! A source answers `GET /price?asset=ETH%2FUSD&at=<ms>` with `{"asset": …, "at_ms": …, "price_cents": …}`: the
//! market price at that time ([`market_price`]) plus the source's own offset, as real feeds disagree by a few
//! cents. Agents ask for the price at their round's start (a block time, the same on every replica), so the
//! agreed estimate can be checked against the market.
//!
//! Both sides run on Tokio and must be polled where a Tokio runtime is entered: the simulation's caller enters
//! one; the engine adapter polls behaviours inside its own.

use std::convert::Infallible;
use std::fmt::{self, Display, Formatter};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// The market price of the asset at `at_ms` (in cents): it moves every second of block time, by up to ±20 USD
/// around 2,000 USD.
pub fn market_price(at_ms: u64) -> u64 {
    200_000 + (at_ms / 1_000).wrapping_mul(7_919) % 4_000
}

/// How a source answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// At once.
    Normal,
    /// After `delay`; every `stall_every`-th request (the first included) after `stall` instead.
    Slow {
        /// The usual wait.
        delay: Duration,
        /// How often a request stalls.
        stall_every: u64,
        /// How long a stalled request waits.
        stall: Duration,
    },
    /// Never with a price: `503 Service Unavailable`.
    Failing,
}

/// What a source sends back for a price.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quote {
    /// The asset quoted.
    pub asset: String,
    /// The time the price is for.
    pub at_ms: u64,
    /// The price, in cents.
    pub price_cents: u64,
}

/// A price source serving on 127.0.0.1 until it is dropped.
#[derive(Debug)]
pub struct PriceSource {
    addr: SocketAddr,
    kind: SourceKind,
    offset_cents: i64,
    requests: Arc<AtomicU64>,
    server: Aborting<()>,
}

impl PriceSource {
    /// Starts a source of `kind` quoting the market plus `offset_cents`, on a free port of 127.0.0.1, served by
    /// the runtime `runtime`.
    pub fn start(
        runtime: &Handle,
        kind: SourceKind,
        offset_cents: i64,
    ) -> std::io::Result<PriceSource> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let requests = Arc::new(AtomicU64::new(0));
        let server =
            Aborting(runtime.spawn(serve(listener, kind, offset_cents, Arc::clone(&requests))));
        Ok(PriceSource {
            addr,
            kind,
            offset_cents,
            requests,
            server,
        })
    }

    /// The URL agents ask for prices.
    pub fn url(&self) -> String {
        format!("http://{}/price", self.addr)
    }

    /// How it answers.
    pub fn kind(&self) -> SourceKind {
        self.kind
    }

    /// The price it quotes for `at_ms`: the market's plus its offset.
    pub fn quote(&self, at_ms: u64) -> u64 {
        market_price(at_ms).saturating_add_signed(self.offset_cents)
    }

    /// How many requests it received.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Whether its server task is still running.
    pub fn is_serving(&self) -> bool {
        !self.server.0.is_finished()
    }
}

/// A spawned task that is aborted when this is dropped: a source stops serving with its handle, and a request
/// whose behaviour was cancelled stops with it.
#[derive(Debug)]
struct Aborting<T>(JoinHandle<T>);

impl<T> Drop for Aborting<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn serve(listener: TcpListener, kind: SourceKind, offset: i64, requests: Arc<AtomicU64>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let requests = Arc::clone(&requests);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                answer(request, kind, offset, Arc::clone(&requests))
            });
            // A client that hangs up early (its agent's round ended) is not the source's problem.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    request: Request<Incoming>,
    kind: SourceKind,
    offset: i64,
    requests: Arc<AtomicU64>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let n = requests.fetch_add(1, Ordering::SeqCst);
    let reply = |status: StatusCode, body: String| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        Ok(response)
    };
    match kind {
        SourceKind::Normal => {}
        SourceKind::Slow {
            delay,
            stall_every,
            stall,
        } => {
            let stalls = n.is_multiple_of(stall_every.max(1));
            tokio::time::sleep(if stalls { stall } else { delay }).await;
        }
        SourceKind::Failing => {
            return reply(
                StatusCode::SERVICE_UNAVAILABLE,
                "upstream exchange unreachable".into(),
            );
        }
    }
    let query = request.uri().query().unwrap_or("");
    let (Some(asset), Some(at_ms)) = (
        param(query, "asset"),
        param(query, "at").and_then(|at| at.parse::<u64>().ok()),
    ) else {
        return reply(StatusCode::BAD_REQUEST, "expected ?asset=…&at=<ms>".into());
    };
    if request.uri().path() != "/price" || asset != super::ASSET {
        return reply(StatusCode::NOT_FOUND, format!("no price for {asset}"));
    }
    let quote = Quote {
        asset,
        at_ms,
        price_cents: market_price(at_ms).saturating_add_signed(offset),
    };
    let body = serde_json::to_string(&quote).unwrap_or_default();
    reply(StatusCode::OK, body)
}

/// The value of `name` in a query string, percent-decoded.
fn param(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .and_then(|(_, value)| percent_decode(value))
}

fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Why a fetch gave no price: the agent abstains with this as its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// No connection, or the connection broke.
    Connection(String),
    /// No answer within the timeout.
    Timeout(Duration),
    /// The source answered with an error status.
    Status(u16),
    /// The answer was not a quote for what was asked.
    BadQuote(String),
}

impl Display for FetchError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Connection(e) => write!(f, "price source unreachable: {e}"),
            Self::Timeout(t) => write!(f, "price source timed out after {} ms", t.as_millis()),
            Self::Status(code) => write!(f, "price source answered HTTP {code}"),
            Self::BadQuote(e) => write!(f, "price source sent no usable quote: {e}"),
        }
    }
}

impl std::error::Error for FetchError {}

/// An agent's client for one price source.
#[derive(Clone, Debug)]
pub struct PriceFeed {
    addr: SocketAddr,
    timeout: Duration,
}

impl PriceFeed {
    /// A client for the source at `url` (`http://host:port/price`), giving up on an answer after `timeout`.
    pub fn new(url: &str, timeout: Duration) -> Result<PriceFeed, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("`{url}`: only http:// URLs"))?;
        let authority = rest.strip_suffix("/price").unwrap_or(rest);
        let addr = authority
            .parse::<SocketAddr>()
            .map_err(|e| format!("`{url}`: expected http://<ip>:<port>/price ({e})"))?;
        Ok(PriceFeed { addr, timeout })
    }

    /// The price of `asset` at `at_ms`, in cents, as the source quotes it.
    pub async fn price(&self, asset: &str, at_ms: u64) -> Result<u64, FetchError> {
        let path = format!("/price?asset={}&at={at_ms}", percent_encode(asset));
        let body = tokio::time::timeout(self.timeout, self.get(&path))
            .await
            .map_err(|_| FetchError::Timeout(self.timeout))??;
        let quote: Quote =
            serde_json::from_slice(&body).map_err(|e| FetchError::BadQuote(e.to_string()))?;
        if quote.asset != asset || quote.at_ms != at_ms {
            return Err(FetchError::BadQuote(format!(
                "{} at {} ms, asked for {asset} at {at_ms} ms",
                quote.asset, quote.at_ms
            )));
        }
        Ok(quote.price_cents)
    }

    /// One GET over a fresh HTTP/1.1 connection; the body of a 2xx answer.
    async fn get(&self, path: &str) -> Result<Bytes, FetchError> {
        let broken = |e: &dyn Display| FetchError::Connection(e.to_string());
        let stream = TcpStream::connect(self.addr)
            .await
            .map_err(|e| broken(&e))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| broken(&e))?;
        // The connection is driven beside the exchange, and dropped with it when the behaviour is cancelled.
        let _connection = Aborting(tokio::spawn(connection));
        let request = Request::get(path)
            .header(hyper::header::HOST, self.addr.to_string())
            .body(Empty::<Bytes>::new())
            .map_err(|e| broken(&e))?;
        let response = sender.send_request(request).await.map_err(|e| broken(&e))?;
        if !response.status().is_success() {
            return Err(FetchError::Status(response.status().as_u16()));
        }
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| broken(&e))?;
        Ok(body.to_bytes())
    }
}

/// The price sources of the oracle example: one answers at once, one slowly (and now and then past the agents'
/// timeout), one fails with `503`.
#[derive(Debug)]
pub struct Sources {
    /// Answers at once, quoting the market.
    pub normal: PriceSource,
    /// Answers after [`SLOW_MS`], every third request (the first included) after [`STALL_MS`], quoting the
    /// market plus [`SLOW_OFFSET_CENTS`].
    pub slow: PriceSource,
    /// Always answers `503 Service Unavailable`.
    pub failing: PriceSource,
}

/// The slow source's usual delay.
pub const SLOW_MS: u64 = 150;
/// How long the slow source's stalled requests take: past [`TIMEOUT_MS`].
pub const STALL_MS: u64 = 2_000;
/// How long an agent waits for a price.
pub const TIMEOUT_MS: u64 = 600;
/// The slow source quotes a little above the market.
pub const SLOW_OFFSET_CENTS: i64 = 12;

impl Sources {
    /// Starts the three sources on 127.0.0.1, served by `runtime`.
    pub fn start(runtime: &Handle) -> std::io::Result<Sources> {
        Ok(Sources {
            normal: PriceSource::start(runtime, SourceKind::Normal, 0)?,
            slow: PriceSource::start(
                runtime,
                SourceKind::Slow {
                    delay: Duration::from_millis(SLOW_MS),
                    stall_every: 3,
                    stall: Duration::from_millis(STALL_MS),
                },
                SLOW_OFFSET_CENTS,
            )?,
            failing: PriceSource::start(runtime, SourceKind::Failing, 0)?,
        })
    }

    /// The source agent `i` of the example uses: agents 0 and 3 the normal one, 1 the slow one, 2 the failing one.
    pub fn for_agent(&self, i: usize) -> &PriceSource {
        match i % 4 {
            1 => &self.slow,
            2 => &self.failing,
            _ => &self.normal,
        }
    }

    /// A client for agent `i`'s source, with the example's timeout.
    pub fn feed(&self, i: usize) -> PriceFeed {
        PriceFeed {
            addr: self.for_agent(i).addr,
            timeout: Duration::from_millis(TIMEOUT_MS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoding_round_trips() {
        assert_eq!(percent_encode("ETH/USD"), "ETH%2FUSD");
        assert_eq!(
            percent_decode(&percent_encode("ETH/USD")).as_deref(),
            Some("ETH/USD")
        );
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(param("asset=ETH%2FUSD&at=5", "at").as_deref(), Some("5"));
    }

    #[test]
    fn feeds_parse_only_http_urls() {
        let feed = PriceFeed::new("http://127.0.0.1:8080/price", Duration::from_secs(1)).unwrap();
        assert_eq!(feed.addr.port(), 8080);
        assert!(PriceFeed::new("https://127.0.0.1:8080/price", Duration::from_secs(1)).is_err());
        assert!(PriceFeed::new("http://localhost/price", Duration::from_secs(1)).is_err());
    }

    #[test]
    fn sources_answer_over_http_as_their_kind_says() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let sources = Sources::start(runtime.handle()).unwrap();
        let at = 12_345;
        runtime.block_on(async {
            let normal = sources.feed(0);
            assert_eq!(normal.price("ETH/USD", at).await, Ok(market_price(at)));
            assert_eq!(
                normal.price("BTC/USD", at).await,
                Err(FetchError::Status(404))
            );
            assert_eq!(
                sources.feed(2).price("ETH/USD", at).await,
                Err(FetchError::Status(503))
            );
            // The slow source's first request stalls past the timeout; the next is only slow.
            let slow = sources.feed(1);
            let timeout = Duration::from_millis(TIMEOUT_MS);
            assert_eq!(
                slow.price("ETH/USD", at).await,
                Err(FetchError::Timeout(timeout))
            );
            assert_eq!(slow.price("ETH/USD", at).await, Ok(sources.slow.quote(at)));
            assert_eq!(sources.slow.quote(at), market_price(at) + 12);
        });
        assert_eq!(sources.slow.requests(), 2);
        assert!(sources.normal.is_serving());
        // Nothing listens once a source is dropped.
        let url = sources.normal.url();
        drop(sources);
        let gone = PriceFeed::new(&url, Duration::from_secs(1)).unwrap();
        runtime.block_on(async {
            // The abort takes effect at the task's next poll.
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert!(matches!(
                gone.price("ETH/USD", 1).await,
                Err(FetchError::Connection(_))
            ));
        });
    }
}
