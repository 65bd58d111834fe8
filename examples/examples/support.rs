//! Runs one support conversation and prints what the client saw and the recorded dialogue.

fn main() {
    match fsmc_examples::support::answered("my invoice shows the wrong address") {
        Ok(c) => {
            for s in &c.screens {
                let progress = s
                    .progress
                    .map(|(d, t)| format!(" ({d}/{t})"))
                    .unwrap_or_default();
                println!("{:<18} offers {:?}{progress}", s.state.name(), s.offered);
            }
            for u in c.session.dialogue().utterances() {
                println!("{:?}: {}", u.actor, u.text);
            }
            println!("actions: {:?}", c.assistant.actions);
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
