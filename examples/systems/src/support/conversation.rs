//! A conversation as a web front end holds it (the session and every request with its answer), and the
//! three conversations `cargo run -p fsmc-examples --example support` prints: the tests run the same ones, so
//! what the example shows is what they check.

use std::time::Duration;

use fsmc_runtime::genie::{Flow, GenieError, Model, POLL, Response, Session};

use super::support_assistant::State;
use super::{Case, SupportModel};

/// One line of a conversation's trace: what was sent, and what the front end got back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The event sent (`poll` included) and its input.
    pub sent: (String, String),
    /// The response, or the refusal.
    pub got: Result<Response, GenieError>,
}

/// A conversation as a front end holds it: the session, and the trace of every exchange.
pub struct Conversation {
    /// The session.
    pub session: Session<State, Case>,
    /// Every request and its answer, the opening included.
    pub trace: Vec<Exchange>,
}

impl Conversation {
    /// Starts a conversation with `customer` on `flow`: the opening utterance is the start state's template.
    pub fn start(flow: &Flow<State>, customer: &str) -> Result<Self, GenieError> {
        let (session, opening) = flow.start(Case::new(customer))?;
        Ok(Conversation {
            session,
            trace: vec![Exchange {
                sent: ("start".into(), String::new()),
                got: Ok(opening),
            }],
        })
    }

    /// Sends `event` with `input`, as the front end's "send" button does; refusals are kept in the trace.
    pub fn send(&mut self, event: &str, input: &str) -> Result<Response, GenieError> {
        let got = self.session.send(event, input);
        self.trace.push(Exchange {
            sent: (event.into(), input.into()),
            got: got.clone(),
        });
        got
    }

    /// Polls until the invokers are done (or failed), as a front end does while it shows progress: every
    /// change of the session (a task done, a new DAG) is one poll in the trace.
    pub async fn poll_until_idle(&mut self) -> Response {
        let mut updates = self.session.updates();
        loop {
            let now = self.session.poll();
            let running = now.next_actions == [POLL];
            let changed = self
                .trace
                .last()
                .is_none_or(|e| e.got.as_ref().ok() != Some(&now));
            if changed {
                self.trace.push(Exchange {
                    sent: (POLL.into(), String::new()),
                    got: Ok(now.clone()),
                });
            }
            if !running || updates.changed().await.is_err() {
                return now;
            }
        }
    }

    /// Saves the session to JSON, stops it (as a server that goes down does) and resumes it on `flow` from
    /// that JSON, as another server would; the trace records it as `resume`, with what a poll then answers.
    pub fn restart(&mut self, flow: &Flow<State>) -> Result<(), GenieError> {
        let saved = serde_json::to_string(&self.session.snapshot())
            .map_err(|e| GenieError::Snapshot(e.to_string()))?;
        self.session.close();
        let restored: Model<State, Case> =
            serde_json::from_str(&saved).map_err(|e| GenieError::Snapshot(e.to_string()))?;
        self.session = flow.resume(restored)?;
        self.trace.push(Exchange {
            sent: ("resume".into(), String::new()),
            got: Ok(self.session.poll()),
        });
        Ok(())
    }
}

/// Renders a trace as the example prints it.
/// A response's output is printed when it differs from the last one printed (polls repeat it).
pub fn render_trace(trace: &[Exchange]) -> String {
    let mut out = String::new();
    let mut shown: Option<&str> = None;
    for e in trace {
        let (event, input) = &e.sent;
        let sent = if input.is_empty() {
            format!("> {event}")
        } else {
            format!("> {event} {input:?}")
        };
        out.push_str(&sent);
        out.push('\n');
        match &e.got {
            Ok(r) => {
                let progress = r
                    .progress
                    .map(|p| format!(" [{}/{} tasks]", p.done(), p.total()))
                    .unwrap_or_default();
                let next = if r.next_actions.is_empty() {
                    "nothing".to_owned()
                } else {
                    r.next_actions.join(", ")
                };
                out.push_str(&format!("  {}{progress}, next: {next}\n", r.state));
                if let Some(text) = r.output.as_deref().filter(|t| Some(*t) != shown) {
                    for line in text.lines() {
                        out.push_str(format!("  | {line}").trim_end());
                        out.push('\n');
                    }
                    shown = Some(text);
                }
                if let Some(error) = &r.error {
                    out.push_str(&format!("  ! {error}\n"));
                }
            }
            Err(e) => out.push_str(&format!("  refused: {e}\n")),
        }
    }
    out
}

/// One of the conversations the example prints: what it shows, and the conversation, trace and all.
pub struct Story {
    /// The heading the example prints.
    pub title: &'static str,
    /// The conversation as it ended.
    pub conversation: Conversation,
}

/// The example's three conversations, on one flow whose every task takes `latency` (long enough that a request
/// sent right after another sees the work still running): Ada's question answered, Grace's hand-over whose
/// summary fails once and is retried across a restart, Alan's question whose classifier fails and is gone on
/// without, and Linus's unreadable upload abandoned and drafting model that stays down, which hands him over to
/// a person.
pub async fn stories(latency: Duration) -> Result<Vec<Story>, GenieError> {
    let model = SupportModel::new(latency);
    // The flow holds the spec's templates (read and checked when the spec was compiled) and the invoker.
    let flow = Flow::<State>::new(model.clone())?;
    Ok(vec![
        Story {
            title: "Ada's invoice: user -> invoker -> invoker -> invoker -> user -> user",
            conversation: ada(&flow).await?,
        },
        Story {
            title: "Grace's refund: clarification, a failed task and its retry, a restart mid-task",
            conversation: grace(&flow, &model).await?,
        },
        Story {
            title: "Alan's password: a classifier that fails, and the conversation goes on without it",
            conversation: alan(&flow, &model).await?,
        },
        Story {
            title: "Linus's parcel: an upload that cannot be read, a drafting model that stays down",
            conversation: linus(&flow, &model).await?,
        },
    ])
}

async fn ada(flow: &Flow<State>) -> Result<Conversation, GenieError> {
    let mut ada = Conversation::start(flow, "Ada")?;
    // Refused, and nothing changes: the validator wants a message, and `close` is not offered in `Welcome`.
    let _ = ada.send("user_input", "   ");
    let _ = ada.send("close", "bye");
    ada.send("user_input", "my invoice shows the wrong address")?;
    // While the classifier runs only `poll` is offered: anything else is refused.
    let _ = ada.send("close", "never mind");
    ada.poll_until_idle().await;
    ada.send("close", "thanks, that solved it")?;
    Ok(ada)
}

async fn grace(flow: &Flow<State>, model: &SupportModel) -> Result<Conversation, GenieError> {
    let mut grace = Conversation::start(flow, "Grace")?;
    grace.send("user_input", "hello?")?;
    grace.poll_until_idle().await;
    model.fail_once("summarise");
    grace.send(
        "user_input",
        "I was charged twice, I want to talk to a person",
    )?;
    grace.poll_until_idle().await;
    // `SummariseForAgent` waits when its work fails (`on_failure retry;`): the failure is shown with `retry`
    // and `abandon` as the next actions, and the front end sends `retry`.
    grace.send("retry", "")?;
    // The server restarts while the summary is being written: the session is saved, and resumed elsewhere.
    grace.restart(flow)?;
    grace.poll_until_idle().await;
    Ok(grace)
}

async fn alan(flow: &Flow<State>, model: &SupportModel) -> Result<Conversation, GenieError> {
    let mut alan = Conversation::start(flow, "Alan")?;
    model.fail_once("classify");
    // `ClassifyQuestion` goes on without its output (the machine's `on_failure continue;`), as Genie Flow's
    // error handler does: retrieval finds nothing for an empty classification, the draft is empty, and the
    // spec hands an empty answer over to a person. The failure shows until the customer's next event.
    alan.send("user_input", "how do I reset my password?")?;
    alan.poll_until_idle().await;
    Ok(alan)
}

async fn linus(flow: &Flow<State>, model: &SupportModel) -> Result<Conversation, GenieError> {
    let mut linus = Conversation::start(flow, "Linus")?;
    model.fail_once("ocr");
    // The dialogue records a note of the upload (a hook's derivative), not the upload.
    linus.send("upload", "screenshot: tracking page, Error 404")?;
    linus.poll_until_idle().await;
    // `ExtractAttachment` waits too; this time the customer gives the upload up and the conversation goes on
    // without it, as `on_failure continue;` would have.
    linus.send("abandon", "")?;
    linus.poll_until_idle().await;
    model.take_down("draft");
    linus.send(
        "user_input",
        "my parcel tracking link does not work, it is urgent",
    )?;
    // `DraftAnswer` sends `draft_failed` when its work fails (`on_failure = draft_failed;`): a person takes
    // over, and the failure is shown with the hand-over.
    linus.poll_until_idle().await;
    Ok(linus)
}

/// Renders a story as the example prints it: its title and trace, then [`render_outcome`].
pub fn render_story(story: &Story) -> String {
    let c = &story.conversation;
    format!(
        "== {}\n\n{}\n{}",
        story.title,
        render_trace(&c.trace),
        render_outcome(c)
    )
}

/// Where a conversation ended: the dialogue (each utterance's first line), the transitions, the ticket if one
/// was opened, and the failures the session kept.
pub fn render_outcome(c: &Conversation) -> String {
    let mut out = String::from("  dialogue:\n");
    for u in c.session.dialogue().utterances() {
        let first = u.text.lines().next().unwrap_or("");
        let more = if u.text.lines().count() > 1 {
            " …"
        } else {
            ""
        };
        out.push_str(&format!("    {:<9} {first}{more}\n", u.actor.name()));
    }
    let case = c.session.context();
    out.push_str(&format!("  transitions: {}\n", case.transitions.join(", ")));
    if let Some(ticket) = &case.ticket {
        out.push_str(&format!(
            "  ticket: {ticket}, team notified {} time(s)\n",
            case.notified
        ));
    }
    for f in c.session.snapshot().failures() {
        out.push_str(&format!("  failure kept in the session: {f}\n"));
    }
    out
}
