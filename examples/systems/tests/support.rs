//! Genie Flow sessions on the generated support assistant (`specs/support/support.fsm`), driven as a
//! web front end drives them: templates rendered from the spec's files, invoker work named by the spec and run
//! as DAGs of Tokio tasks with progress, only `poll` while one runs, failures met by each state's policy,
//! sessions saved and resumed mid-task, and every refusal leaving the session as it was.
//!
//! The invoker's tasks wait at a gate the test opens one task at a time, so what each test sees while work
//! runs does not depend on timing.

use std::sync::Arc;
use std::time::Duration;

use fsmc_examples::support::support_assistant::{self, State, Work};
use fsmc_examples::support::{Case, SupportModel};
use fsmc_runtime::genie::{
    ABANDON, Actor, FailurePolicy, Flow, GenieError, GenieSpec, Invocation, Invoker, Model, POLL,
    Persistence, RETRY, Response, Session, TaskCall, TaskFuture, TaskGraph, TaskProgress,
    Templates,
};
use tokio::sync::Semaphore;

/// The support model, whose tasks each wait for a permit of `gate` before they run.
#[derive(Clone)]
struct Gated {
    model: SupportModel,
    gate: Arc<Semaphore>,
    prompts: Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

impl Gated {
    fn new() -> Self {
        Gated {
            model: SupportModel::new(Duration::ZERO),
            gate: Arc::new(Semaphore::new(0)),
            prompts: Arc::default(),
        }
    }

    /// Lets `n` more tasks run.
    fn open(&self, n: usize) {
        self.gate.add_permits(n);
    }

    /// The prompt (rendered template) each task was given, as (task, prompt).
    fn prompts(&self) -> Vec<(String, String)> {
        self.prompts.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

impl Invoker<Work> for Gated {
    fn plan(&self, invocation: &Invocation<'_, Work>) -> TaskGraph {
        self.model.plan(invocation)
    }

    fn run(&self, call: TaskCall<Work>) -> TaskFuture {
        if let Ok(mut p) = self.prompts.lock() {
            p.push((call.task.clone(), call.prompt.clone()));
        }
        let gate = Arc::clone(&self.gate);
        let inner = self.model.run(call);
        Box::pin(async move {
            // A closed gate would be a bug of the test: the task then fails, visibly.
            let permit = gate.acquire_owned().await;
            permit
                .map_err(|_| fsmc_runtime::genie::TaskError::new("the gate closed"))?
                .forget();
            inner.await
        })
    }
}

/// Waits (at most five seconds) until `done` holds of the session's poll.
async fn until(session: &Session<State, Case>, done: impl Fn(&Response) -> bool) -> Response {
    let mut updates = session.updates();
    let wait = async {
        loop {
            let now = session.poll();
            if done(&now) {
                return now;
            }
            if updates.changed().await.is_err() {
                return session.poll();
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), wait)
        .await
        .expect("the session got there in time")
}

fn progress(r: &Response) -> Option<(u32, u32)> {
    r.progress.map(|p| (p.done(), p.total()))
}

fn texts(session: &Session<State, Case>) -> Vec<(Actor, String)> {
    session
        .dialogue()
        .utterances()
        .iter()
        .map(|u| (u.actor, u.text.clone()))
        .collect()
}

fn start(invoker: &Gated) -> (Flow<State>, Session<State, Case>, Response) {
    let flow = Flow::<State>::new(invoker.clone()).expect("the spec's templates compile");
    let (session, opening) = flow.start(Case::new("Ada")).expect("the opening renders");
    (flow, session, opening)
}

const WELCOME: &str = "Hello Ada, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.";

#[tokio::test]
async fn the_start_template_is_the_opening_utterance() {
    let g = Gated::new();
    let (_, session, opening) = start(&g);
    assert_eq!(opening.state, "Welcome");
    assert_eq!(opening.output.as_deref(), Some(WELCOME));
    assert_eq!(opening.next_actions, ["user_input", "upload", "escalate"]);
    assert_eq!((opening.progress, opening.error), (None, None));
    assert_eq!(texts(&session), [(Actor::Assistant, WELCOME.to_owned())]);
    // The templates are the spec's files, as `fsmc` read them.
    assert_eq!(State::Welcome.template(), "templates/welcome.jinja2");
    let sources = <State as GenieSpec>::templates();
    assert_eq!(sources.len(), State::ALL.len(), "one file per state");
    for (path, source) in sources {
        let on_disk = std::fs::read_to_string(format!("../../specs/support/{path}")).unwrap();
        assert_eq!(*source, on_disk, "{path}");
    }
}

#[tokio::test]
async fn only_poll_is_offered_while_an_invoker_runs_and_anything_else_is_refused() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    let r = session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    // user → invoker: the user is shown their own input, recorded raw; then only `poll`.
    assert_eq!(r.state, "ClassifyQuestion");
    assert_eq!(
        r.output.as_deref(),
        Some("my invoice shows the wrong address")
    );
    assert_eq!(r.next_actions, [POLL]);
    assert_eq!(progress(&r), Some((0, 1)));
    let before = session.snapshot();
    for (event, input) in [("close", "x"), ("user_input", "again"), ("escalate", "")] {
        let err = session.send(event, input).unwrap_err();
        assert_eq!(
            err,
            GenieError::Busy {
                state: "ClassifyQuestion".into(),
                progress: TaskProgress::new(1),
            }
        );
        assert_eq!(
            err.to_string(),
            "`ClassifyQuestion` is working (0 of 1 tasks done): only `poll` is offered"
        );
    }
    assert_eq!(
        session.snapshot(),
        before,
        "a refused event changes nothing"
    );
    // `poll` answers with progress and changes nothing either.
    assert_eq!(session.send(POLL, "").unwrap(), r);
    assert_eq!(session.snapshot(), before);
}

#[tokio::test]
async fn progress_counts_the_running_dag_and_a_new_invoker_starts_fresh() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    g.open(1);
    // The classifier's one task is done: its DAG's last task sent `advance`, and RetrieveDocuments (an
    // invoker → invoker transition) started a DAG of its own, with its own progress from zero.
    let r = until(&session, |r| r.state == "RetrieveDocuments").await;
    assert_eq!(progress(&r), Some((0, 3)));
    assert_eq!(r.next_actions, [POLL]);
    g.open(1);
    let r = until(&session, |r| progress(r) == Some((1, 3))).await;
    assert_eq!(r.state, "RetrieveDocuments");
    g.open(1);
    until(&session, |r| progress(r) == Some((2, 3))).await;
    g.open(1);
    let r = until(&session, |r| r.state == "DraftAnswer").await;
    assert_eq!(progress(&r), Some((0, 2)));
    g.open(2);
    let r = until(&session, |r| r.state == "PresentAnswer").await;
    assert_eq!(r.progress, None);
    assert_eq!(r.next_actions, ["user_input", "escalate", "close"]);
    // `rank` ran after both searches, with their outputs.
    let tasks: Vec<String> = g.prompts().into_iter().map(|(t, _)| t).collect();
    let rank = tasks.iter().position(|t| t == "rank").unwrap();
    assert!(tasks[..rank].contains(&"search_manual".to_owned()));
    assert!(tasks[..rank].contains(&"search_faq".to_owned()));
}

#[tokio::test]
async fn the_dialogue_records_what_each_transition_type_prescribes() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    g.open(10);
    let r = until(&session, |r| r.state == "PresentAnswer").await;
    // invoker → user: the DAG's output rendered into the target's template (`actor_input`) is shown.
    let shown = r.output.unwrap();
    assert!(
        shown.starts_with("Here is what our help centre says:\n- the billing address"),
        "{shown}"
    );
    assert!(shown.ends_with("close the conversation."), "{shown}");
    let r = session.send("close", "thanks, that solved it").unwrap();
    assert_eq!(r.state, "Closed");
    assert_eq!(
        r.output.as_deref(),
        Some("Glad I could help, Ada. Goodbye!")
    );
    assert!(r.next_actions.is_empty());
    let d = texts(&session);
    let actors: Vec<Actor> = d.iter().map(|(a, _)| *a).collect();
    // opening; user → invoker RAW; Classify → Retrieve (invoker → invoker) NONE; Retrieve → Draft overridden to
    // RENDERED (the draft prompt); Draft → Present RENDERED; Present → Closed overridden to RAW.
    assert_eq!(
        actors,
        [
            Actor::Assistant,
            Actor::User,
            Actor::Assistant,
            Actor::Assistant,
            Actor::User
        ]
    );
    assert_eq!(d[1].1, "my invoice shows the wrong address");
    assert!(
        d[2].1
            .starts_with("Answer the customer's question using only these passages.")
    );
    assert_eq!(d[3].1, shown);
    assert_eq!(d[4].1, "thanks, that solved it");
    assert_eq!(
        support_assistant::persistence(
            State::RetrieveDocuments,
            support_assistant::Event::Advance,
            State::DraftAnswer
        ),
        Persistence::Rendered
    );
    // The spec's actions ran through the context.
    let case = session.context();
    assert_eq!(case.question, "my invoice shows the wrong address");
    assert!(case.resolved);
    assert_eq!(
        case.answer.as_deref().map(|a| a.starts_with("Here is")),
        Some(true)
    );
}

#[tokio::test]
async fn templates_see_the_dialogue_and_the_context() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    session.send("user_input", "hello?").unwrap();
    g.open(1);
    // The classifier says the question is not clear: the guard sends the customer a clarification request.
    let r = until(&session, |r| r.state == "AskClarification").await;
    assert_eq!(
        r.output.as_deref(),
        Some(
            "I want to be sure I understand, Ada. Could you say a little more: what did you try, and what happened?"
        )
    );
    session
        .send(
            "user_input",
            "I was charged twice, I want to talk to a person",
        )
        .unwrap();
    g.open(10);
    let r = until(&session, |r| r.state == "HandedOver").await;
    // The summary's prompt was rendered from the dialogue so far; the hand-over from the ticket the action
    // opened and the summary (`actor_input`).
    let (_, prompt) = g
        .prompts()
        .into_iter()
        .find(|(t, _)| t == "summarise")
        .unwrap();
    assert!(prompt.contains("\nuser: hello?\n"), "{prompt}");
    assert!(
        prompt.contains("\nassistant: I want to be sure I understand, Ada."),
        "{prompt}"
    );
    assert_eq!(
        r.output.as_deref(),
        Some(
            "A colleague will take over (ticket SUP-1004). This is what they will read:\nThe customer wrote: hello? / I was charged twice, I want to talk to a person"
        )
    );
    let case = session.context();
    assert_eq!(case.ticket.as_deref(), Some("SUP-1004"));
    assert_eq!(
        case.question,
        "hello? I was charged twice, I want to talk to a person"
    );
}

#[tokio::test]
async fn refused_requests_leave_the_session_as_it_was() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    let before = session.snapshot();
    // A validator refuses an empty message.
    let err = session.send("user_input", "  ").unwrap_err();
    assert_eq!(
        err.to_string(),
        "event `user_input` was rejected in state `Welcome`: the message is empty"
    );
    // An event the state does not accept.
    let err = session.send("close", "bye").unwrap_err();
    assert_eq!(
        err.to_string(),
        "event `close` is not accepted in state `Welcome`; it accepts: `user_input`, `upload`, `escalate`"
    );
    // A name that is no event at all.
    let err = session.send("teleport", "").unwrap_err();
    assert_eq!(
        err.to_string(),
        "`teleport` is not an event of `SupportAssistant`; `Welcome` accepts `user_input`, `upload`, `escalate`"
    );
    assert_eq!(session.snapshot(), before);
    assert!(g.prompts().is_empty(), "no task was started");
}

/// A flow whose template `path` is `source` instead of the spec's.
fn with_template(g: &Gated, path: &str, source: &str) -> Session<State, Case> {
    let mut templates = Templates::new(<State as GenieSpec>::templates().iter().copied()).unwrap();
    templates.set(path, source).unwrap();
    let flow = Flow::<State>::with_templates(g.clone(), templates).unwrap();
    flow.start(Case::new("Ada")).unwrap().0
}

#[tokio::test]
async fn a_user_template_that_fails_to_render_is_a_clear_error_and_changes_nothing() {
    let g = Gated::new();
    // A template that names a variable the context does not have.
    let session = with_template(&g, "templates/goodbye.jinja2", "Bye {{ costumer }}");
    session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    g.open(10);
    until(&session, |r| r.state == "PresentAnswer").await;
    let before = session.snapshot();
    let err = session.send("close", "thanks").unwrap_err();
    assert_eq!(
        err.to_string(),
        "template `templates/goodbye.jinja2` failed: undefined value: `costumer` is undefined (line 1)"
    );
    assert_eq!(session.snapshot(), before);
}

#[tokio::test]
async fn an_invoker_template_is_rendered_by_its_work_and_a_render_error_is_the_works_failure() {
    let g = Gated::new();
    let session = with_template(&g, "templates/classify.jinja2", "Classify {{ qestion }}");
    // The user's event is not refused: the invoker's template is rendered when its work starts, as Genie Flow's
    // task renders it.
    let r = session.send("user_input", "where is my parcel?").unwrap();
    assert_eq!(
        (r.state.as_str(), r.error.as_deref()),
        ("ClassifyQuestion", None)
    );
    assert_eq!(
        texts(&session)[1],
        (Actor::User, "where is my parcel?".to_owned())
    );
    g.open(10);
    // The classification failed before any task ran; `ClassifyQuestion` follows the machine's `on_failure
    // continue;`: its event goes on with an empty input, and with nothing classified nothing is retrieved or
    // drafted, so a person takes over. The failure is shown with the next actions of the state reached.
    let r = until(&session, |r| r.state == "HandedOver").await;
    let failure = "the work of `ClassifyQuestion` failed: template `templates/classify.jinja2` failed: undefined value: `qestion` is undefined (line 1)";
    assert_eq!(r.error.as_deref(), Some(failure));
    let tasks: Vec<String> = g.prompts().into_iter().map(|(t, _)| t).collect();
    assert!(!tasks.contains(&"classify".to_owned()), "{tasks:?}");
    let failures = session.snapshot().failures().to_vec();
    assert_eq!((failures.len(), failures[0].task.clone()), (1, None));
}

#[tokio::test]
async fn a_render_error_after_an_invoker_is_met_by_the_states_policy() {
    let g = Gated::new();
    let session = with_template(
        &g,
        "templates/ask_clarification.jinja2",
        "{{ customer.name.first }}",
    );
    session.send("user_input", "hello?").unwrap();
    g.open(10);
    // The classifier's event (to `AskClarification`) could not be rendered: that is the classifier's failure,
    // and `continue` sends its event again with an empty input, which the guards send to retrieval.
    let r = until(&session, |r| r.state == "HandedOver").await;
    let error = r.error.unwrap();
    assert!(error.starts_with("the work of `ClassifyQuestion` failed: template `templates/ask_clarification.jinja2` failed"), "{error}");
    let transitions = session.context().transitions;
    assert_eq!(
        transitions[1],
        "ClassifyQuestion -advance-> RetrieveDocuments"
    );
    assert_eq!(session.snapshot().failures().len(), 1);
}

#[tokio::test]
async fn a_failure_whose_way_out_is_refused_waits_offering_retry_and_abandon() {
    let g = Gated::new();
    // `RetrieveDocuments -> DraftAnswer` records `DraftAnswer`'s rendered template, which cannot render: the
    // retrieval's event is refused, and so is going on with an empty input under `continue`.
    let session = with_template(&g, "templates/draft_answer.jinja2", "{{ pasages }}");
    session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    g.open(10);
    let r = until(&session, |r| r.error.is_some()).await;
    let why = "template `templates/draft_answer.jinja2` failed: undefined value: `pasages` is undefined (line 1)";
    assert_eq!(r.state, "RetrieveDocuments");
    assert_eq!(
        r.error,
        Some(format!(
            "the work of `RetrieveDocuments` failed: {why}, and going on was refused: {why}"
        ))
    );
    // The session is not trapped: the way out is still offered, and a refused one changes nothing.
    assert_eq!(r.next_actions, [RETRY, ABANDON]);
    assert_eq!(session.snapshot().failures().len(), 2);
    let before = session.snapshot();
    assert_eq!(session.abandon().unwrap_err().to_string(), why);
    assert_eq!(session.snapshot(), before);
    // Every task had finished: a retry runs none again, only sends the retrieval's event once more.
    let r = session.retry().unwrap();
    assert_eq!(
        (progress(&r), r.next_actions),
        (Some((3, 3)), vec![POLL.to_owned()])
    );
    let r = until(&session, |r| r.error.is_some()).await;
    assert_eq!(r.next_actions, [RETRY, ABANDON]);
    assert_eq!(
        g.prompts().len(),
        4,
        "classify and the three retrieval tasks, once each"
    );
}

#[tokio::test]
async fn a_failure_under_retry_waits_offering_retry_and_abandon() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    assert_eq!(State::ExtractAttachment.on_failure(), FailurePolicy::Retry);
    g.model.fail_once("ocr");
    session.send("upload", "screenshot: Error E42").unwrap();
    g.open(1);
    let r = until(&session, |r| r.error.is_some()).await;
    assert_eq!(r.state, "ExtractAttachment");
    assert_eq!(
        r.error.as_deref(),
        Some("task `ocr` of `ExtractAttachment` failed: the model did not answer in time")
    );
    // The way out is offered: retry, or give the work up.
    assert_eq!(r.next_actions, [RETRY, ABANDON]);
    let before = session.snapshot();
    let err = session.send("user_input", "hello").unwrap_err();
    assert!(matches!(err, GenieError::Failed(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "task `ocr` of `ExtractAttachment` failed: the model did not answer in time; send `retry` or `abandon`"
    );
    assert_eq!(session.snapshot(), before);
    assert_eq!(session.poll(), r);
    let r = session.send(RETRY, "").unwrap();
    assert_eq!(
        (r.next_actions.clone(), progress(&r), r.error),
        (vec![POLL.to_owned()], Some((0, 1)), None)
    );
    g.open(1);
    let r = until(&session, |r| r.state == "ClassifyQuestion").await;
    assert_eq!(r.error, None);
    // The failure is history now, never lost.
    let failures = session.snapshot().failures().to_vec();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].task.as_deref(), Some("ocr"));
    assert_eq!(session.retry().unwrap_err(), GenieError::NothingFailed);
}

#[tokio::test]
async fn abandoned_work_goes_on_as_continue_does_and_the_failure_shows_until_the_users_next_event()
{
    let g = Gated::new();
    let (_, session, _) = start(&g);
    g.model.take_down("ocr");
    session.send("upload", "screenshot: Error E42").unwrap();
    g.open(1);
    until(&session, |r| r.error.is_some()).await;
    let r = session.send(ABANDON, "").unwrap();
    // The state's event, with an empty input: the classifier runs on no extracted text.
    assert_eq!(
        (r.state.as_str(), progress(&r)),
        ("ClassifyQuestion", Some((0, 1)))
    );
    assert!(r.error.unwrap().ends_with("the model is down"));
    assert_eq!(session.snapshot().actor_input(), "");
    g.open(1);
    let r = until(&session, |r| r.state == "AskClarification").await;
    assert!(r.error.is_some(), "shown until the user's next event");
    assert_eq!(r.next_actions, ["user_input", "upload", "escalate"]);
    let r = session.send("escalate", "").unwrap();
    assert_eq!(r.error, None);
    assert_eq!(session.abandon().unwrap_err(), GenieError::NothingFailed);
}

#[tokio::test]
async fn a_failure_under_continue_sends_the_event_on_with_an_empty_input() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    assert_eq!(
        State::ClassifyQuestion.on_failure(),
        FailurePolicy::Continue
    );
    g.model.fail_once("classify");
    session
        .send("user_input", "where is my parcel? it is late")
        .unwrap();
    g.open(1);
    // As Genie Flow's error handler does: the event goes on with an empty input (no classification: retrieval
    // on nothing), and the error comes with the next state's actions rather than trapping the session.
    let r = until(&session, |r| r.state == "RetrieveDocuments").await;
    assert_eq!(r.next_actions, [POLL]);
    assert_eq!(
        r.error.as_deref(),
        Some("task `classify` of `ClassifyQuestion` failed: the model did not answer in time")
    );
    assert_eq!(session.snapshot().actor_input(), "");
}

#[tokio::test]
async fn a_failure_event_takes_the_specs_way_out() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    assert_eq!(
        State::DraftAnswer.on_failure(),
        FailurePolicy::Send("draft_failed")
    );
    g.model.take_down("draft");
    session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    g.open(10);
    let r = until(&session, |r| r.state == "HandedOver").await;
    assert_eq!(
        r.error.as_deref(),
        Some("task `draft` of `DraftAnswer` failed: the model is down")
    );
    let case = session.context();
    assert_eq!(
        case.transitions[3],
        "DraftAnswer -draft_failed-> SummariseForAgent"
    );
    // The spec's transition on the failure event ran its action, and the hand-over its own.
    assert_eq!(case.notified, 2);
    // `review`, which needs the draft, never ran.
    assert!(!g.prompts().iter().any(|(t, _)| t == "review"));
}

#[test]
fn the_spec_names_the_work_each_invoker_state_runs() {
    assert_eq!(State::ClassifyQuestion.work(), Some(Work::Classification));
    assert_eq!(State::RetrieveDocuments.work(), Some(Work::Retrieval));
    assert_eq!(State::Welcome.work(), None);
    assert_eq!(Work::Drafting.name(), "drafting");
    assert_eq!(Work::ALL.len(), 5);
    for s in State::ALL {
        let invoker = s.state_type() == fsmc_runtime::genie::StateType::Invoker;
        assert_eq!(s.work().is_some(), invoker, "{s}");
    }
}

#[tokio::test]
async fn a_session_resumes_from_its_json_with_the_task_in_flight() {
    let g = Gated::new();
    let (flow, session, _) = start(&g);
    session
        .send("user_input", "my invoice shows the wrong address")
        .unwrap();
    g.open(2);
    // Classification done; retrieval has done one of its two searches, the other is waiting at the gate.
    let r = until(&session, |r| progress(r) == Some((1, 3))).await;
    assert_eq!(r.state, "RetrieveDocuments");
    let json = serde_json::to_string(&session.snapshot()).unwrap();
    session.close();
    drop(session);
    let started_before = g.prompts().len();

    // Another process: the same flow (templates, invoker), the session read back.
    let model: Model<State, Case> = serde_json::from_str(&json).unwrap();
    assert_eq!(model.state(), State::RetrieveDocuments);
    assert_eq!(
        model.progress().map(|p| (p.done(), p.total())),
        Some((1, 3))
    );
    let resumed = flow.resume(model).unwrap();
    assert_eq!(progress(&resumed.poll()), Some((1, 3)));
    assert_eq!(resumed.poll().next_actions, [POLL]);
    g.open(10);
    let r = until(&resumed, |r| r.state == "PresentAnswer").await;
    assert!(
        r.output
            .unwrap()
            .starts_with("Here is what our help centre says:")
    );
    // The search that had finished did not run again: only the one in flight, then `rank`, then drafting.
    let rerun: Vec<String> = g.prompts()[started_before..]
        .iter()
        .map(|(t, _)| t.clone())
        .collect();
    assert_eq!(
        rerun.iter().filter(|t| t.starts_with("search_")).count(),
        1,
        "{rerun:?}"
    );
    assert!(rerun.contains(&"rank".to_owned()));
    assert_eq!(
        texts(&resumed)[1],
        (Actor::User, "my invoice shows the wrong address".to_owned())
    );
}

#[tokio::test]
async fn the_response_is_what_a_web_front_end_reads() {
    let g = Gated::new();
    let (_, session, _) = start(&g);
    let r = session
        .send("upload", "screenshot: Error E42 payment declined")
        .unwrap();
    // `(Welcome, upload)` runs `note_upload`, which records a note of the upload instead of the upload; the
    // customer is shown what the dialogue recorded.
    let note = "[uploaded a file of 38 characters]";
    assert_eq!(texts(&session)[1], (Actor::User, note.to_owned()));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "state": "ExtractAttachment",
            "output": note,
            "next_actions": ["poll"],
            "progress": {"done": 0, "total": 1},
            "error": null,
        })
    );
}

#[test]
fn a_flow_needs_a_tokio_runtime() {
    let err = Flow::<State>::new(Gated::new()).unwrap_err();
    assert_eq!(err, GenieError::NoRuntime);
}

#[tokio::test]
async fn a_snapshot_that_does_not_fit_the_machine_is_refused() {
    let g = Gated::new();
    let (flow, session, _) = start(&g);
    session.send("user_input", "where is my parcel?").unwrap();
    let mut json: serde_json::Value = serde_json::to_value(session.snapshot()).unwrap();
    session.close();
    // An invoker state without its work: resuming it would skip the invoker.
    let mut skipped = json.clone();
    skipped["task"] = serde_json::Value::Null;
    let model: Model<State, Case> = serde_json::from_value(skipped).unwrap();
    assert_eq!(
        flow.resume(model).unwrap_err().to_string(),
        "the session cannot be resumed: it is in the invoker state `ClassifyQuestion` without the work that state runs"
    );
    // Work in flight in a user state.
    json["state"] = serde_json::json!("Welcome");
    let model: Model<State, Case> = serde_json::from_value(json.clone()).unwrap();
    let err = flow.resume(model).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the session cannot be resumed: it has work in flight in `Welcome`, which is a user state"
    );
    // The actor of an invoker state is the assistant.
    json["state"] = serde_json::json!("ClassifyQuestion");
    json["actor"] = serde_json::json!("user");
    let model: Model<State, Case> = serde_json::from_value(json.clone()).unwrap();
    assert!(matches!(flow.resume(model), Err(GenieError::Snapshot(_))));
    json["actor"] = serde_json::json!("assistant");
    // Progress that does not match the outputs recorded.
    json["task"]["progress"]["done"] = serde_json::json!(1);
    let model: Model<State, Case> = serde_json::from_value(json.clone()).unwrap();
    assert!(matches!(flow.resume(model), Err(GenieError::Snapshot(_))));
    // A state the machine does not have is refused by serde, by name.
    json["state"] = serde_json::json!("Nowhere");
    let err = serde_json::from_value::<Model<State, Case>>(json).unwrap_err();
    assert!(
        err.to_string()
            .contains("`Nowhere` is not a state of `SupportAssistant`"),
        "{err}"
    );
}
