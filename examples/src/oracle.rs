//! Open Autonomy FSM app (`specs/oracle/oracle.fsm`): four agent instances run the composed price-oracle app.
//! Each round collects the payloads the instances' behaviours submit and decides an event with the kind's
//! rule (threshold ⌈(2N+1)/3⌉); the synchronized data is updated from the decided value, a reset round starts
//! a new period (only cross-period keys carry over), and every instance computes the same result.

fsmc_runtime::include_fsm!("../specs/oracle/oracle.fsm");

use fsmc_runtime::data::Periods;
use fsmc_runtime::rounds::{Outcome, Participants, Round as _, RoundError};
use oracle_abci_app::{Behaviour, Data, Event, Round, State};
use std::collections::{BTreeMap, BTreeSet};

/// One agent instance: its address and its own price source.
#[derive(Clone, Debug)]
pub struct Instance {
    pub address: String,
    /// This instance's observation, in cents; sources disagree slightly.
    pub observed: u64,
    /// When false, the instance behaves as a keeper that fails to submit (to exercise the failure path).
    pub keeper_submits: bool,
    /// How many randomness rounds this instance took part in. Every instance takes part in the same rounds,
    /// so this is the same everywhere: a valid input for shared randomness.
    pub draws: u64,
}

impl Behaviour for Instance {
    fn registration_startup_round(&mut self, _: &Data) -> BTreeSet<String> {
        (0..4).map(|i| format!("agent-{i}")).collect()
    }
    fn registration_round(&mut self, data: &Data) -> Option<BTreeSet<String>> {
        Some(self.registration_startup_round(data))
    }
    fn collect_observation_round(&mut self, _: &Data) -> (String, u64) {
        (self.address.clone(), self.observed)
    }
    /// The median of everyone's observations: the same on every instance.
    fn estimate_consensus_round(&mut self, data: &Data) -> Option<u64> {
        let mut values: Vec<u64> = data.observations.as_ref()?.values().copied().collect();
        values.sort_unstable();
        values.get(values.len() / 2).copied()
    }
    fn tx_hash_round(&mut self, data: &Data) -> Option<String> {
        data.estimate.map(|e| format!("0xtx{e:08x}"))
    }
    /// Shared randomness: derived from the period's data, never from local entropy (determinism).
    fn randomness_round(&mut self, data: &Data) -> Option<[u8; 32]> {
        self.draws += 1;
        let seed = data
            .estimate
            .unwrap_or(0)
            .wrapping_mul(31)
            .wrapping_add(self.draws);
        let mut r = [0u8; 32];
        for (i, b) in r.iter_mut().enumerate() {
            *b = (seed.rotate_left(i as u32) & 0xff) as u8;
        }
        Some(r)
    }
    fn select_keeper_round(&mut self, data: &Data) -> Option<String> {
        let participants: Vec<&String> = data.participants.as_ref()?.iter().collect();
        let r = data.most_voted_randomness?;
        participants
            .get(usize::from(r[0]) % participants.len())
            .map(|p| (*p).clone())
    }
    fn submit_price_round(&mut self, data: &Data) -> Option<String> {
        if !self.keeper_submits {
            return None;
        }
        data.tx_hash.as_ref().map(|h| format!("{h}-settled"))
    }
    fn validate_price_round(&mut self, data: &Data) -> Option<bool> {
        Some(data.final_tx_hash.is_some() && data.estimate.is_some())
    }
    fn reset_and_pause_round(&mut self, _: &Data) -> Option<u64> {
        Some(1)
    }
}

/// One decided round: where, what it decided, and the event it emitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub period: u64,
    pub state: State,
    pub event: Event,
}

/// Applies a decided round's value to the synchronized data (the round's end-of-block update).
fn apply<P: Ord + Clone>(round: &Round<P>, data: &mut Data) {
    fn done<V: Clone>(o: Option<Outcome<V>>) -> Option<V> {
        match o {
            Some(Outcome::Done(v)) => Some(v),
            _ => None,
        }
    }
    match round {
        Round::RegistrationStartupRound(r) => {
            data.participants = done(r.outcome()).or(data.participants.take())
        }
        Round::RegistrationRound(r) => {
            data.participants = done(r.outcome()).or(data.participants.take())
        }
        Round::CollectObservationRound(r) => {
            data.observations =
                done(r.outcome()).map(|m: BTreeMap<P, (String, u64)>| m.into_values().collect());
        }
        Round::EstimateConsensusRound(r) => data.estimate = done(r.outcome()),
        Round::TxHashRound(r) => {
            data.tx_hash =
                done(r.outcome()).and_then(|m: BTreeMap<P, String>| m.into_values().next())
        }
        Round::RandomnessRound(r) => data.most_voted_randomness = done(r.outcome()),
        Round::SelectKeeperRound(r) => data.keeper = done(r.outcome()),
        Round::SubmitPriceRound(r) => data.final_tx_hash = done(r.outcome()),
        Round::ValidatePriceRound(r) => {
            if done(r.outcome()).is_some() {
                data.last_reported_price = Some(data.estimate);
            }
        }
        Round::ResetAndPauseRound(_) => {}
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct Run {
    pub decisions: Vec<Decision>,
    pub data: Periods<Data>,
    pub state: State,
}

/// Runs the app for `periods` full periods with the given instances. `failing_keeper` makes that instance fail
/// to submit whenever it is the keeper, so the app elects another one.
pub fn run(periods: u64, failing_keeper: Option<&str>) -> Result<Run, String> {
    let mut instances: Vec<Instance> = (0..4)
        .map(|i| Instance {
            address: format!("agent-{i}"),
            observed: 1000 + 7 * i,
            keeper_submits: Some(format!("agent-{i}").as_str()) != failing_keeper,
            draws: 0,
        })
        .collect();
    let mut data = Periods::new(Data::default());
    let mut state = State::DEFAULT_START;
    let mut decisions = Vec::new();
    let mut guard = 0;
    while data.period() < periods {
        guard += 1;
        if guard > 1000 {
            return Err("the app did not converge".into());
        }
        let mut participants = Participants::new(instances.iter().map(|i| i.address.clone()))
            .map_err(|e| e.to_string())?;
        if let Some(keeper) = data.current().keeper.clone() {
            participants = participants
                .with_keeper(keeper)
                .map_err(|e| e.to_string())?;
        }
        let Some(mut round) =
            Round::new(state, &participants).map_err(|e: RoundError| e.to_string())?
        else {
            return Err(format!("no round to run in {state}"));
        };
        for inst in &mut instances {
            let who = inst.address.clone();
            match round.submit_behaviour(inst, data.current(), who) {
                // A decided round ignores late payloads, as a round that already emitted its event does.
                Ok(()) | Err(RoundError::AlreadyDecided) => {}
                // Only the keeper may send in a keeper round; the others stay silent.
                Err(RoundError::NotKeeper) => {}
                Err(e) => return Err(format!("{state}: {e}")),
            }
        }
        // An undecided round ends by its timeout event (every non-final round here has one or retries).
        let event = match round.decided() {
            Some(e) => e,
            None => *state
                .accepted()
                .iter()
                .find(|e| e.timeout().is_some())
                .ok_or(format!("{state} is stuck"))?,
        };
        apply(&round, data.current_mut());
        decisions.push(Decision {
            period: data.period(),
            state,
            event,
        });
        state = state.next(event).map_err(|e| e.to_string())?;
        if state.is_reset() {
            // Entering the reset round starts a new period: only cross-period keys carry over.
            data.start_new_period(Data::carry);
            data.prune(2);
        }
    }
    Ok(Run {
        decisions,
        data,
        state,
    })
}
