//! Genie Flow (`specs/support/support.fsm`): a support assistant driven the way a web front end drives
//! it, through a [`Session`](fsmc_runtime::genie::Session). The spec decides the states, guards, actions and
//! what the dialogue records; the runtime renders the spec's Jinja2 templates, runs each invoker state's work
//! as a DAG of Tokio tasks (only `poll` is offered meanwhile), and sends the state's event when the DAG is
//! done.
//!
//! What is written here is what a Genie application writes: the case the conversation is about ([`Case`],
//! the session's context, which implements the generated `Hooks`) and the invoker ([`SupportModel`], rules
//! standing in for the LLM calls, which plans and runs the tasks of the work each invoker state names, matching
//! on the generated `Work` enum). A front end's side of a conversation, and the conversations the example
//! prints, are in `conversation.rs`.

fsmc_runtime::include_fsm!("../../specs/support/support.fsm");

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use fsmc_runtime::ValidationError;
use fsmc_runtime::genie::{Invocation, Invoker, TaskCall, TaskError, TaskFuture, TaskGraph};
use support_assistant::{Event, Hooks, Transition, Work};

mod conversation;
pub use conversation::{
    Conversation, Exchange, Story, render_outcome, render_story, render_trace, stories,
};

/// The case a conversation is about: the session's context. Templates see its fields (`{{ customer }}`,
/// `{{ question }}`, `{{ ticket }}`); the spec's guards read it and its actions change it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Case {
    /// The customer's name, shown in the greeting.
    pub customer: String,
    /// What the customer asked, across clarifications.
    pub question: String,
    /// The answer shown, once drafted.
    pub answer: Option<String>,
    /// The ticket opened for a human agent.
    pub ticket: Option<String>,
    /// Times the support team was notified.
    pub notified: u32,
    /// Whether the customer closed the case as solved.
    pub resolved: bool,
    /// Every transition, as `from -event-> to`, in order (recorded by `after_transition`).
    pub transitions: Vec<String>,
}

impl Case {
    /// A new case for `customer`.
    pub fn new(customer: &str) -> Self {
        Case {
            customer: customer.to_owned(),
            ..Case::default()
        }
    }
}

/// The classifier's verdict on one field, as its output (rendered by `classify.jinja2`'s format) states it.
fn says(output: &str, field: &str, value: &str) -> bool {
    output
        .lines()
        .any(|l| l.trim() == format!("{field}: {value}"))
}

impl Hooks for Case {
    // The guards read the invoker's output, which arrives as the event's input (`actor_input`).
    fn needs_human(&self, t: &Transition<'_>) -> bool {
        says(t.profile.actor_input(), "human", "yes")
    }
    fn is_ambiguous(&self, t: &Transition<'_>) -> bool {
        says(t.profile.actor_input(), "clear", "no")
    }
    fn answer_is_empty(&self, t: &Transition<'_>) -> bool {
        t.profile.actor_input().trim().is_empty()
    }

    fn log_question(&mut self, t: &Transition<'_>) {
        let text = t.profile.actor_input().trim();
        if !self.question.is_empty() {
            self.question.push(' ');
        }
        self.question.push_str(text);
    }
    fn record_answer(&mut self, t: &Transition<'_>) {
        self.answer = Some(t.profile.actor_input().to_owned());
    }
    fn notify_support_team(&mut self, _: &Transition<'_>) {
        self.notified += 1;
    }
    fn record_resolution(&mut self, _: &Transition<'_>) {
        self.resolved = true;
    }
    /// The dialogue records a note of the upload, not its content (what a person reading the case needs).
    fn note_upload(&mut self, t: &Transition<'_>) {
        let size = t.profile.actor_input().chars().count();
        t.profile
            .record(format!("[uploaded a file of {size} characters]"));
    }
    fn open_ticket(&mut self, t: &Transition<'_>) {
        // Numbered after the conversation so far, so the same conversation opens the same ticket.
        self.ticket = Some(format!("SUP-{}", 1000 + t.profile.dialogue().len()));
    }

    /// A customer message must say something: an empty one is refused, and the session stays as it was.
    fn validate(&self, t: &Transition<'_>) -> Result<(), ValidationError> {
        if t.event == Event::UserInput && t.profile.actor_input().trim().is_empty() {
            return Err(ValidationError::new("the message is empty"));
        }
        Ok(())
    }

    fn after_transition(&mut self, t: &Transition<'_>) {
        self.transitions
            .push(format!("{} -{}-> {}", t.from, t.event, t.to));
    }
}

/// The help-centre passages the retrieval tasks search, by area.
const MANUAL: &[(&str, &str)] = &[
    (
        "billing",
        "Invoices: the billing address is the one in Settings > Billing; invoices issued after a change use the new address.",
    ),
    (
        "shipping",
        "Shipping: parcels ship within two working days; the tracking link is in the confirmation email.",
    ),
    (
        "account",
        "Account: reset your password from the sign-in page with 'Forgot password'.",
    ),
];
const FAQ: &[(&str, &str)] = &[
    (
        "billing",
        "FAQ: to correct an invoice already issued, reply to the invoice email and we reissue it within a day.",
    ),
    (
        "shipping",
        "FAQ: a parcel marked delivered but missing can be reported after 48 hours.",
    ),
];

/// The rules that stand in for the LLM: deterministic, so runs and tests repeat exactly.
fn classify(question: &str) -> String {
    let q = question.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| q.contains(w));
    let area = if has(&["invoice", "bill", "charge", "refund"]) {
        "billing"
    } else if has(&["parcel", "delivery", "shipping", "tracking"]) {
        "shipping"
    } else if has(&["password", "login", "sign in", "account"]) {
        "account"
    } else {
        "product"
    };
    let human = has(&["person", "human", "lawyer", "complaint", "refund"]);
    let clear = q.split_whitespace().count() >= 4;
    let urgency = if has(&["urgent", "asap", "now"]) {
        "high"
    } else {
        "normal"
    };
    format!(
        "area: {area}\nurgency: {urgency}\nclear: {}\nhuman: {}",
        if clear { "yes" } else { "no" },
        if human { "yes" } else { "no" }
    )
}

fn passages(kb: &[(&str, &str)], classification: &str) -> String {
    kb.iter()
        .filter(|(area, _)| says(classification, "area", area))
        .map(|(_, text)| *text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The line of a rendered prompt that starts with `label`.
fn prompt_line<'p>(prompt: &'p str, label: &str) -> &'p str {
    prompt
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or("")
        .trim()
}

/// The invoker: plans each invoker state's DAG and runs its tasks, each after a short delay standing in for
/// a model call. Tasks see the state's rendered template (the prompt) and the outputs of the tasks they need.
#[derive(Clone, Debug)]
pub struct SupportModel {
    /// How long each task takes.
    pub latency: Duration,
    /// Tasks made to fail, by name (to show a failure recorded and retried); a failed task is healed once it
    /// has failed, so a retry succeeds.
    pub failing: Arc<Mutex<Vec<String>>>,
    /// Tasks that fail every time: a model that stays down.
    pub down: Arc<Mutex<Vec<String>>>,
    /// Every task started, as `state/task`, in the order started.
    pub started: Arc<Mutex<Vec<String>>>,
}

impl SupportModel {
    /// A model whose tasks take `latency` each.
    pub fn new(latency: Duration) -> Self {
        SupportModel {
            latency,
            failing: Arc::default(),
            down: Arc::default(),
            started: Arc::default(),
        }
    }

    /// Makes the next run of task `name` fail.
    pub fn fail_once(&self, name: &str) {
        self.failing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(name.to_owned());
    }

    /// Makes every run of task `name` fail from now on.
    pub fn take_down(&self, name: &str) {
        self.down
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(name.to_owned());
    }

    /// The tasks started so far.
    pub fn started(&self) -> Vec<String> {
        self.started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Invoker<Work> for SupportModel {
    fn plan(&self, invocation: &Invocation<'_, Work>) -> TaskGraph {
        let mut g = TaskGraph::new();
        // Indices come from `add` itself, so a dependency can only name a task added before it. The match is
        // on the spec's names for the work: one the spec does not have does not compile, and a new one in the
        // spec is a missing arm.
        let dag = |g: &mut TaskGraph| -> Result<(), TaskError> {
            match invocation.work {
                Work::Retrieval => {
                    let manual = g.add("search_manual", &[])?;
                    let faq = g.add("search_faq", &[])?;
                    g.add("rank", &[manual, faq])?;
                }
                Work::Drafting => {
                    let draft = g.add("draft", &[])?;
                    g.add("review", &[draft])?;
                }
                Work::Ocr => {
                    g.add("ocr", &[])?;
                }
                Work::Summary => {
                    g.add("summarise", &[])?;
                }
                Work::Classification => {
                    g.add("classify", &[])?;
                }
            }
            Ok(())
        };
        match dag(&mut g) {
            Ok(()) => g,
            // An empty graph is refused by the session with a clear error.
            Err(_) => TaskGraph::new(),
        }
    }

    fn run(&self, call: TaskCall<Work>) -> TaskFuture {
        let latency = self.latency;
        let failing = Arc::clone(&self.failing);
        let down = Arc::clone(&self.down);
        self.started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(format!("{}/{}", call.state, call.task));
        Box::pin(async move {
            tokio::time::sleep(latency).await;
            {
                let mut failing = failing.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(i) = failing.iter().position(|t| *t == call.task) {
                    failing.remove(i);
                    return Err(TaskError::new("the model did not answer in time"));
                }
            }
            if down
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&call.task)
            {
                return Err(TaskError::new("the model is down"));
            }
            let inputs: BTreeMap<&str, &str> = call
                .inputs
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let input = |name: &str| inputs.get(name).copied().unwrap_or("");
            Ok(match call.task.as_str() {
                "classify" => classify(prompt_line(&call.prompt, "Question:")),
                "ocr" => format!("The upload shows: {}", call.actor_input.trim()),
                "search_manual" => passages(MANUAL, &call.actor_input),
                "search_faq" => passages(FAQ, &call.actor_input),
                "rank" => [input("search_manual"), input("search_faq")]
                    .iter()
                    .filter(|p| !p.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n"),
                // No passage, no answer: the spec hands an empty answer over to a person.
                "draft" if call.actor_input.trim().is_empty() => String::new(),
                "draft" => {
                    let points: Vec<String> = call
                        .actor_input
                        .lines()
                        .map(|l| format!("- {}", l.split_once(": ").map_or(l, |(_, rest)| rest)))
                        .collect();
                    format!("Here is what our help centre says:\n{}", points.join("\n"))
                }
                "review" => input("draft").to_owned(),
                "summarise" => {
                    let said: Vec<&str> = call
                        .prompt
                        .lines()
                        .filter_map(|l| l.strip_prefix("user: "))
                        .collect();
                    format!("The customer wrote: {}", said.join(" / "))
                }
                other => return Err(TaskError::new(format!("no such task `{other}`"))),
            })
        })
    }
}
