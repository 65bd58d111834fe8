//! Runs three support conversations through Genie sessions, as a web front end would, and prints every
//! request with what came back: the rendered output, the next actions (only `poll` while an invoker works, with
//! its progress), refusals, a session saved mid-task and resumed, and invoker failures met by each state's
//! policy: a summary retried, an unreadable upload abandoned, a drafting model that stays down handing the
//! customer over to a person.
//!
//! `cargo run -p fsmc-examples --example support`

use std::time::Duration;

use fsmc_examples::support::support_assistant::State;
use fsmc_examples::support::{Conversation, SupportModel, render_trace};
use fsmc_runtime::genie::{Flow, GenieError, Model};

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), GenieError> {
    let model = SupportModel::new(Duration::from_millis(20));
    // The flow holds the spec's templates (read and checked when the spec was compiled) and the invoker.
    let flow = Flow::<State>::new(model.clone())?;

    println!("== Ada's invoice: user -> invoker -> invoker -> invoker -> user -> user\n");
    let mut ada = Conversation::start(&flow, "Ada")?;
    // Refused, and nothing changes: the validator wants a message, and `close` is not offered in `Welcome`.
    let _ = ada.send("user_input", "   ");
    let _ = ada.send("close", "bye");
    ada.send("user_input", "my invoice shows the wrong address")?;
    // While the classifier runs only `poll` is offered: anything else is refused.
    let _ = ada.send("close", "never mind");
    ada.poll_until_idle().await;
    ada.send("close", "thanks, that solved it")?;
    print!("{}", render_trace(&ada.trace));
    print_dialogue(&ada);

    println!(
        "\n== Grace's refund: clarification, a failed task and its retry, a restart mid-task\n"
    );
    let mut grace = Conversation::start(&flow, "Grace")?;
    grace.send("user_input", "hello?")?;
    grace.poll_until_idle().await;
    model.fail_once("summarise");
    grace.send(
        "user_input",
        "I was charged twice, I want to talk to a person",
    )?;
    grace.poll_until_idle().await;
    // `SummariseForAgent` waits when its work fails (`on_failure retry;`): the failure is shown with `retry` and
    // `abandon` as the next actions, and the front end sends `retry`.
    grace.send("retry", "")?;
    // The server restarts while the summary is being written: the session is saved, and resumed elsewhere.
    let saved = serde_json::to_string(&grace.session.snapshot())
        .map_err(|e| GenieError::Snapshot(e.to_string()))?;
    grace.session.close();
    let restored: Model<State, fsmc_examples::support::Case> =
        serde_json::from_str(&saved).map_err(|e| GenieError::Snapshot(e.to_string()))?;
    grace.session = flow.resume(restored)?;
    grace.trace.push(fsmc_examples::support::Exchange {
        sent: ("resume".into(), String::new()),
        got: Ok(grace.session.poll()),
    });
    grace.poll_until_idle().await;
    print!("{}", render_trace(&grace.trace));
    print_dialogue(&grace);
    let case = grace.session.context();
    println!(
        "  ticket: {:?}, team notified {} time(s)",
        case.ticket, case.notified
    );
    for f in grace.session.snapshot().failures() {
        println!("  failure kept in the session: {f}");
    }

    println!(
        "\n== Linus's parcel: an upload that cannot be read, a drafting model that stays down\n"
    );
    let mut linus = Conversation::start(&flow, "Linus")?;
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
    print!("{}", render_trace(&linus.trace));
    print_dialogue(&linus);
    for f in linus.session.snapshot().failures() {
        println!("  failure kept in the session: {f}");
    }
    Ok(())
}

fn print_dialogue(c: &Conversation) {
    println!("\n  dialogue:");
    for u in c.session.dialogue().utterances() {
        let first = u.text.lines().next().unwrap_or("");
        let more = if u.text.lines().count() > 1 {
            " …"
        } else {
            ""
        };
        println!("    {:<9} {first}{more}", u.actor.name());
    }
    println!(
        "  transitions: {}",
        c.session.context().transitions.join(", ")
    );
}
