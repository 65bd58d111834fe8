//! A dice game as a node program on the Malachite BFT engine: the spec (`dice.fsm`), what each agent does in
//! each round (`Player`), how the custom round is decided (`HighestRoll`), and `main`.

fsmc_runtime::include_fsm!("dice.fsm");

use dice_abci_app::{
    Behaviour, Context, Deciding, RollRoundOutcome, RollRoundWrites, Rounds, Spec,
};
use fsmc_malachite::cli::NodeCli;
use fsmc_runtime::app::Abstain;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

/// The game's own `start` flags (`dice-node start --home DIR --think-ms 20`).
#[derive(clap::Args, Clone, Debug)]
struct Flags {
    /// How long a player takes to roll, in milliseconds.
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
}

/// One agent: its own die.
struct Player {
    think: Duration,
}

impl Behaviour for Player {
    async fn register_round(&self, _: Context) -> Result<String, Abstain> {
        Ok("dice".to_string())
    }

    /// Waits (as a call to a service would, while the node goes on applying blocks), then rolls.
    async fn roll_round(&self, ctx: Context) -> Result<u8, Abstain> {
        tokio::time::sleep(self.think).await;
        let mut h = DefaultHasher::new();
        (ctx.me(), ctx.period(), ctx.round_count()).hash(&mut h);
        Ok(u8::try_from(h.finish() % 6).unwrap_or(0) + 1)
    }

    async fn reset_round(&self, ctx: Context) -> Result<u64, Abstain> {
        Ok(ctx.period())
    }
}

/// The custom round: once a threshold of players rolled, the highest roll wins, unless two rolled it.
struct HighestRoll;

impl Rounds for HighestRoll {
    fn roll_round(&self, round: &Deciding<'_, u8>) -> Option<(RollRoundOutcome, RollRoundWrites)> {
        if !round.threshold_reached() {
            return None;
        }
        let best = round.payloads().values().copied().max()?;
        let mut winners = round.payloads().iter().filter(|(_, roll)| **roll == best);
        let (winner, _) = winners.next()?;
        let outcome = match winners.next() {
            Some(_) => RollRoundOutcome::Tie,
            None => RollRoundOutcome::Done,
        };
        let games = round.data().games.unwrap_or(0) + u64::from(outcome == RollRoundOutcome::Done);
        let total = round.payloads().values().map(|&r| u64::from(r)).sum();
        Some((
            outcome,
            RollRoundWrites {
                winner: winner.clone(),
                total,
                games,
            },
        ))
    }
}

fn main() -> std::process::ExitCode {
    NodeCli::<Spec, Player, Flags>::with_rounds(Arc::new(HighestRoll), |_node, flags| {
        Ok(Player {
            think: Duration::from_millis(flags.think_ms),
        })
    })
    .main()
}
