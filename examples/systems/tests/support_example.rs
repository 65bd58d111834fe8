//! The conversations `cargo run -p fsmc-examples --example support` prints, run here as the example runs them:
//! what each shows — refusals, a failing invoker met by its state's policy (retried, abandoned, or sent to a
//! person by the spec's failure event), a session resumed mid-task — is pinned request by request.

use std::time::Duration;

use fsmc_examples::support::{Exchange, Story, render_outcome, render_trace, stories};
use fsmc_runtime::genie::POLL;

/// Each task's latency: long enough that a request sent right after another finds the work still running,
/// on a busy machine too.
const LATENCY: Duration = Duration::from_millis(100);

/// The trace without the polls that found work still running: how many of those a front end sees depends on
/// timing; what it sends, what each request answers and where each run of work ends do not.
fn milestones(story: &Story) -> String {
    let kept: Vec<Exchange> = story
        .conversation
        .trace
        .iter()
        .filter(|e| !(e.sent.0 == POLL && e.got.as_ref().is_ok_and(|r| r.progress.is_some())))
        .cloned()
        .collect();
    render_trace(&kept)
}

/// Runs the example's conversations; each story is checked request by request and where it ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_examples_conversations_meet_each_failure_by_its_states_policy() {
    let stories = stories(LATENCY).await.expect("the example runs");
    let expected = [
        (ADA, ADA_OUTCOME),
        (GRACE, GRACE_OUTCOME),
        (ALAN, ALAN_OUTCOME),
        (LINUS, LINUS_OUTCOME),
    ];
    assert_eq!(stories.len(), expected.len());
    for (story, (trace, outcome)) in stories.iter().zip(expected) {
        assert_eq!(milestones(story), trace, "{}", story.title);
        assert_eq!(
            render_outcome(&story.conversation),
            outcome,
            "{}",
            story.title
        );
    }
}

/// Ada's question is answered: refusals (an empty message, an event not offered, an event while the
/// classifier works) change nothing.
const ADA: &str = r#"> start
  Welcome, next: user_input, upload, escalate
  | Hello Ada, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
> user_input "   "
  refused: event `user_input` was rejected in state `Welcome`: the message is empty
> close "bye"
  refused: event `close` is not accepted in state `Welcome`; it accepts: `user_input`, `upload`, `escalate`
> user_input "my invoice shows the wrong address"
  ClassifyQuestion [0/1 tasks], next: poll
  | my invoice shows the wrong address
> close "never mind"
  refused: `ClassifyQuestion` is working (0 of 1 tasks done): only `poll` is offered
> poll
  PresentAnswer, next: user_input, escalate, close
  | Here is what our help centre says:
  | - the billing address is the one in Settings > Billing; invoices issued after a change use the new address.
  | - to correct an invoice already issued, reply to the invoice email and we reissue it within a day.
  |
  | Did that solve it? Ask another question, ask for a person, or close the conversation.
> close "thanks, that solved it"
  Closed, next: nothing
  | Glad I could help, Ada. Goodbye!
"#;

const ADA_OUTCOME: &str = r#"  dialogue:
    assistant Hello Ada, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
    user      my invoice shows the wrong address
    assistant Answer the customer's question using only these passages. Answer nothing if they do not answer it. …
    assistant Here is what our help centre says: …
    user      thanks, that solved it
  transitions: Welcome -user_input-> ClassifyQuestion, ClassifyQuestion -advance-> RetrieveDocuments, RetrieveDocuments -advance-> DraftAnswer, DraftAnswer -advance-> PresentAnswer, PresentAnswer -close-> Closed
"#;

/// Grace's summary fails once under `on_failure retry;`: the session waits offering `retry` and `abandon`, the
/// front end retries, and the work resumed after a restart finishes the hand-over.
const GRACE: &str = r#"> start
  Welcome, next: user_input, upload, escalate
  | Hello Grace, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
> user_input "hello?"
  ClassifyQuestion [0/1 tasks], next: poll
  | hello?
> poll
  AskClarification, next: user_input, upload, escalate
  | I want to be sure I understand, Grace. Could you say a little more: what did you try, and what happened?
> user_input "I was charged twice, I want to talk to a person"
  ClassifyQuestion [0/1 tasks], next: poll
  | I was charged twice, I want to talk to a person
> poll
  SummariseForAgent, next: retry, abandon
  ! task `summarise` of `SummariseForAgent` failed: the model did not answer in time
> retry
  SummariseForAgent [0/1 tasks], next: poll
> resume
  SummariseForAgent [0/1 tasks], next: poll
> poll
  HandedOver, next: nothing
  | A colleague will take over (ticket SUP-1004). This is what they will read:
  | The customer wrote: hello? / I was charged twice, I want to talk to a person
"#;

const GRACE_OUTCOME: &str = r#"  dialogue:
    assistant Hello Grace, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
    user      hello?
    assistant I want to be sure I understand, Grace. Could you say a little more: what did you try, and what happened?
    user      I was charged twice, I want to talk to a person
    assistant A colleague will take over (ticket SUP-1004). This is what they will read: …
  transitions: Welcome -user_input-> ClassifyQuestion, ClassifyQuestion -advance-> AskClarification, AskClarification -user_input-> ClassifyQuestion, ClassifyQuestion -advance-> SummariseForAgent, SummariseForAgent -advance-> HandedOver
  ticket: SUP-1004, team notified 1 time(s)
  failure kept in the session: task `summarise` of `SummariseForAgent` failed: the model did not answer in time
"#;

/// Alan's classifier fails under the machine's `on_failure continue;`: the conversation goes on with an empty
/// classification, as Genie Flow's error handler does, ends with a person, and shows the failure.
const ALAN: &str = r#"> start
  Welcome, next: user_input, upload, escalate
  | Hello Alan, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
> user_input "how do I reset my password?"
  ClassifyQuestion [0/1 tasks], next: poll
  | how do I reset my password?
> poll
  HandedOver, next: nothing
  | A colleague will take over (ticket SUP-1003). This is what they will read:
  | The customer wrote: how do I reset my password?
  ! task `classify` of `ClassifyQuestion` failed: the model did not answer in time
"#;

const ALAN_OUTCOME: &str = r#"  dialogue:
    assistant Hello Alan, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
    user      how do I reset my password?
    assistant Answer the customer's question using only these passages. Answer nothing if they do not answer it. …
    assistant A colleague will take over (ticket SUP-1003). This is what they will read: …
  transitions: Welcome -user_input-> ClassifyQuestion, ClassifyQuestion -advance-> RetrieveDocuments, RetrieveDocuments -advance-> DraftAnswer, DraftAnswer -advance-> SummariseForAgent, SummariseForAgent -advance-> HandedOver
  ticket: SUP-1003, team notified 1 time(s)
  failure kept in the session: task `classify` of `ClassifyQuestion` failed: the model did not answer in time
"#;

/// Linus's upload cannot be read (`on_failure retry;`) and he abandons it, going on without it; the drafting
/// model stays down, and `DraftAnswer`'s failure event hands him over to a person.
const LINUS: &str = r#"> start
  Welcome, next: user_input, upload, escalate
  | Hello Linus, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
> upload "screenshot: tracking page, Error 404"
  ExtractAttachment [0/1 tasks], next: poll
  | [uploaded a file of 36 characters]
> poll
  ExtractAttachment, next: retry, abandon
  ! task `ocr` of `ExtractAttachment` failed: the model did not answer in time
> abandon
  ClassifyQuestion [0/1 tasks], next: poll
  ! task `ocr` of `ExtractAttachment` failed: the model did not answer in time
> poll
  AskClarification, next: user_input, upload, escalate
  | I want to be sure I understand, Linus. Could you say a little more: what did you try, and what happened?
  ! task `ocr` of `ExtractAttachment` failed: the model did not answer in time
> user_input "my parcel tracking link does not work, it is urgent"
  ClassifyQuestion [0/1 tasks], next: poll
  | my parcel tracking link does not work, it is urgent
> poll
  HandedOver, next: nothing
  | A colleague will take over (ticket SUP-1005). This is what they will read:
  | The customer wrote: [uploaded a file of 36 characters] / my parcel tracking link does not work, it is urgent
  ! task `draft` of `DraftAnswer` failed: the model is down
"#;

const LINUS_OUTCOME: &str = r#"  dialogue:
    assistant Hello Linus, I am the Acme support assistant. What can I help you with? You can also upload a screenshot or a log.
    user      [uploaded a file of 36 characters]
    assistant I want to be sure I understand, Linus. Could you say a little more: what did you try, and what happened?
    user      my parcel tracking link does not work, it is urgent
    assistant Answer the customer's question using only these passages. Answer nothing if they do not answer it. …
    assistant A colleague will take over (ticket SUP-1005). This is what they will read: …
  transitions: Welcome -upload-> ExtractAttachment, ExtractAttachment -advance-> ClassifyQuestion, ClassifyQuestion -advance-> AskClarification, AskClarification -user_input-> ClassifyQuestion, ClassifyQuestion -advance-> RetrieveDocuments, RetrieveDocuments -advance-> DraftAnswer, DraftAnswer -draft_failed-> SummariseForAgent, SummariseForAgent -advance-> HandedOver
  ticket: SUP-1005, team notified 2 time(s)
  failure kept in the session: task `ocr` of `ExtractAttachment` failed: the model did not answer in time
  failure kept in the session: task `draft` of `DraftAnswer` failed: the model is down
"#;
