//! Genie Flow (`specs/genie/support_assistant.fsm`): a support assistant whose invoker states run background
//! work (only `poll` is offered meanwhile, with task progress), with guarded transitions, actions, and the
//! dialogue recorded as each transition type prescribes (or as the spec overrides).

fsmc_runtime::include_fsm!("../specs/genie/support_assistant.fsm");

use fsmc_runtime::genie::{Session, StateType};
use support_assistant::{Event, Hooks, State, persistence, transition_type};

/// The assistant's "model": keyword rules standing in for the LLM calls the invoker states make.
#[derive(Debug, Default)]
pub struct Assistant {
    pub question: String,
    pub answer: String,
    /// Actions run, in order (the spec's `do …`).
    pub actions: Vec<&'static str>,
}

impl Hooks for Assistant {
    fn needs_human(&mut self, _: State, _: Event) -> bool {
        self.question.contains("lawyer") || self.question.contains("refund")
    }
    fn is_ambiguous(&mut self, _: State, _: Event) -> bool {
        self.question.split_whitespace().count() < 3
    }
    fn answer_is_empty(&mut self, _: State, _: Event) -> bool {
        self.answer.is_empty()
    }
    fn log_question(&mut self, _: State, _: Event, _: State) {
        self.actions.push("log_question");
    }
    fn record_answer(&mut self, _: State, _: Event, _: State) {
        self.actions.push("record_answer");
    }
    fn notify_support_team(&mut self, _: State, _: Event, _: State) {
        self.actions.push("notify_support_team");
    }
    fn record_resolution(&mut self, _: State, _: Event, _: State) {
        self.actions.push("record_resolution");
    }
    fn open_ticket(&mut self, _: State, _: Event, _: State) {
        self.actions.push("open_ticket");
    }
}

/// What the client saw at each step: the state, the actions offered, and task progress while one runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Screen {
    pub state: State,
    pub offered: Vec<&'static str>,
    pub progress: Option<(u32, u32)>,
}

/// A conversation: the machine, the Genie session (dialogue and task), the assistant.
pub struct Conversation {
    pub state: State,
    pub session: Session,
    pub assistant: Assistant,
    pub screens: Vec<Screen>,
}

impl Default for Conversation {
    fn default() -> Self {
        Conversation {
            state: State::DEFAULT_START,
            session: Session::new(),
            assistant: Assistant::default(),
            screens: Vec::new(),
        }
    }
}

impl Conversation {
    fn show(&mut self) {
        let offered = self.state.next_actions(self.session.is_task_running());
        let progress = self.session.task().map(|t| (t.done(), t.total()));
        self.screens.push(Screen {
            state: self.state,
            offered,
            progress,
        });
    }

    /// Fires `event` with `input`, doing Genie's bookkeeping: dialogue persistence and invoker tasks.
    pub fn send(
        &mut self,
        event: Event,
        input: &str,
    ) -> Result<State, fsmc_runtime::InvalidTransition<State, Event>> {
        let from = self.state;
        if event == Event::UserInput {
            self.assistant.question = input.to_string();
        }
        let to = from.fire(event, &mut self.assistant)?;
        let rendered = format!("[{}] {input}", to.template());
        // An invoker state's task: a few steps of background work, polled by the client.
        let steps = if to.state_type() == StateType::Invoker {
            2
        } else {
            0
        };
        self.session.transition(
            transition_type(from, to),
            persistence(from, event, to),
            input,
            &rendered,
            steps,
        );
        self.state = to;
        self.show();
        Ok(to)
    }

    /// Polls until the invoker's task finishes, then lets it advance with its output.
    pub fn run_invokers(&mut self) -> Result<State, fsmc_runtime::InvalidTransition<State, Event>> {
        while self.state.state_type() == StateType::Invoker {
            while self.session.task().is_some_and(|t| !t.is_finished()) {
                let _ = self.session.advance_task(1);
                self.show();
            }
            let output = match self.state {
                State::DraftAnswer => {
                    self.assistant.answer =
                        format!("Here is how to fix: {}", self.assistant.question);
                    self.assistant.answer.clone()
                }
                other => format!("{} done", other.name()),
            };
            self.send(Event::Advance, &output)?;
        }
        Ok(self.state)
    }
}

/// A customer asks a question and closes the conversation once answered.
pub fn answered(
    question: &str,
) -> Result<Conversation, fsmc_runtime::InvalidTransition<State, Event>> {
    let mut c = Conversation::default();
    c.show();
    c.send(Event::UserInput, question)?;
    c.run_invokers()?;
    c.send(Event::Close, "thanks")?;
    Ok(c)
}
