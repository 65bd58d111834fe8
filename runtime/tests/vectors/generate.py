#!/usr/bin/env python3
"""Regenerates rounds.jsonl: round-kind test vectors whose expected results come from Open Autonomy's own code.

The round classes are not reimplemented here. The script downloads the pinned source distribution of
open-autonomy from PyPI, imports `abstract_round_abci/base.py` (and the `utils.py` next to it) and
`registration_abci/rounds.py` (with its `payloads.py`) from that download, and feeds random cases to concrete
subclasses of the upstream round classes the way upstream's `RoundSequence` feeds a block: `check_transaction`
then `process_transaction` for every transaction, then one `end_block`. Nothing of upstream ends up in the
repository; only this script and its output do.

Usage (plain python3 >= 3.10 with pip; nothing is installed):

    python3 runtime/tests/vectors/generate.py            # writes rounds.jsonl next to this script
    python3 runtime/tests/vectors/generate.py --sdist open_autonomy-0.15.2.tar.gz   # reuse a download

The sdist's SHA-256 is checked, the RNG is seeded and every map is written in a fixed order, so a rerun
produces a byte-identical file. See README.md for the format.
"""

import argparse
import dataclasses
import enum
import hashlib
import importlib
import json
import random
import subprocess
import sys
import tarfile
import tempfile
import time
import types
import typing
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

UPSTREAM_REQUIREMENT = "open-autonomy==0.15.2"
SDIST_NAME = "open_autonomy-0.15.2.tar.gz"
# Pins the exact bytes the vectors were generated from: a re-uploaded or tampered sdist is refused.
SDIST_SHA256 = "2da8f4ea626ed9599d03fb41c6661594eb774a725fd54e597055a944384e80c7"
SKILLS_DIR = "packages/valory/skills"
SKILLS_PACKAGE = "packages.valory.skills"
SKILL_PACKAGE = f"{SKILLS_PACKAGE}.abstract_round_abci"
REGISTRATION_PACKAGE = f"{SKILLS_PACKAGE}.registration_abci"
# The files imported from the download, by skill.
UPSTREAM_FILES = {
    "abstract_round_abci": ("base.py", "utils.py"),
    "registration_abci": ("rounds.py", "payloads.py"),
}

SEED = "fsmc-upstream-rounds-v1"
CASES_PER_FAMILY = 430

KINDS = (
    "collect_same_until_all",
    "collect_different_until_all",
    "collect_same_until_threshold",
    "collect_different_until_threshold",
    "collect_non_empty_until_threshold",
    "only_keeper_sends",
    "voting",
)
# Upstream's until-all rounds do not check membership; cases with outsiders get a second run without them.
UNTIL_ALL_KINDS = ("collect_same_until_all", "collect_different_until_all")
# Kinds whose payload may be empty (`None`). The others' payload is a plain integer on our side, which has
# no empty value, so their cases must never contain one.
OPTIONAL_PAYLOAD_KINDS = (
    "collect_same_until_threshold",
    "collect_non_empty_until_threshold",
    "only_keeper_sends",
    "voting",
)

OUT_FILE = Path(__file__).resolve().parent / "rounds.jsonl"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------
# Fetching and importing upstream


def fetch_sdist(workdir: Path, sdist: Optional[Path]) -> Path:
    if sdist is None:
        log(f"downloading {UPSTREAM_REQUIREMENT} (source distribution) from PyPI ...")
        subprocess.run(
            [
                sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                "--no-binary", ":all:", UPSTREAM_REQUIREMENT, "-d", str(workdir),
            ],
            check=True,
            stdout=sys.stderr,
        )
        sdist = workdir / SDIST_NAME
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        sys.exit(f"{sdist}: sha256 {digest}, expected {SDIST_SHA256}")
    return sdist


def extract_skills(sdist: Path, workdir: Path) -> Path:
    """Extracts only the modules the vectors need; returns the directory holding the skills."""
    root = SDIST_NAME[: -len(".tar.gz")]
    target = workdir / "upstream" / SKILLS_DIR
    with tarfile.open(sdist) as tar:
        for skill, names in UPSTREAM_FILES.items():
            for name in names:
                member = tar.getmember(f"{root}/{SKILLS_DIR}/{skill}/{name}")
                data = tar.extractfile(member)
                assert data is not None
                path = target / skill / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data.read())
    return target


def stub_module(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def stub_class(name: str) -> type:
    return type(name, (), {})


def enforce(condition: bool, text: str, exception_class: type = Exception) -> None:
    """What `aea.exceptions.enforce` does (upstream's round code calls it)."""
    if not condition:
        raise exception_class(text)


def install_stubs(skills_dir: Path) -> None:
    """Fakes the imports of the upstream modules that the round classes never use at run time.

    The AEA framework, the ABCI connection and protocol, the ledger connection and the BLS libraries are only
    needed by the parts of base.py that talk to Tendermint, sign or verify; the round classes touch none of
    it. Stubbing them keeps the generator free of any installation. `enforce` is reimplemented (three lines)
    because the majority check calls it. registration_abci's rounds import `BaseParams` from the skill's
    models only for a type annotation of a method the vectors never call.
    """
    for name in ("aea", "aea.crypto", "aea.skills"):
        stub_module(name)
    stub_module("aea.crypto.ledger_apis", LedgerApis=stub_class("LedgerApis"))
    stub_module("aea.exceptions", enforce=enforce)
    stub_module("aea.skills.base", SkillContext=stub_class("SkillContext"))

    for name in (
        "packages", "packages.valory", "packages.valory.skills", "packages.valory.connections",
        "packages.valory.connections.abci", "packages.valory.connections.ledger",
        "packages.valory.protocols", "packages.valory.protocols.abci",
    ):
        stub_module(name)
    stub_module("packages.valory.connections.abci.connection", MAX_READ_IN_BYTES=2**20)
    stub_module("packages.valory.connections.ledger.connection", PUBLIC_ID="valory/ledger:0.19.0")
    stub_module(
        "packages.valory.protocols.abci.custom_types",
        **{n: stub_class(n) for n in ("EvidenceType", "Evidences", "Header", "LastCommitInfo", "Validator")},
    )
    # Each skill package is a namespace over the extracted directory, so its __init__ (which needs
    # `aea.configurations`) is skipped while the modules load from the downloaded files.
    stub_module(SKILL_PACKAGE, __path__=[str(skills_dir / "abstract_round_abci")])
    stub_module(REGISTRATION_PACKAGE, __path__=[str(skills_dir / "registration_abci")])
    stub_module(f"{SKILL_PACKAGE}.models", BaseParams=stub_class("BaseParams"))

    # utils.py: the BLS names are only used by the drand verifier; typing_extensions only by type checks.
    stub_module("eth_typing")
    stub_module("eth_typing.bls", BLSPubkey=bytes, BLSSignature=bytes)
    stub_module("py_ecc")
    stub_module("py_ecc.bls", G2Basic=stub_class("G2Basic"))
    stub_module(
        "typing_extensions",
        **{n: getattr(typing, n) for n in ("Literal", "TypeGuard", "TypedDict")},
    )


def load_upstream(skills_dir: Path) -> Tuple[types.ModuleType, types.ModuleType]:
    """Upstream's `abstract_round_abci.base` and `registration_abci.rounds`, loaded from the download."""
    install_stubs(skills_dir)
    base = importlib.import_module(f"{SKILL_PACKAGE}.base")
    registration = importlib.import_module(f"{REGISTRATION_PACKAGE}.rounds")
    for module in (base, registration):
        assert Path(module.__file__).resolve().is_relative_to(skills_dir.resolve()), module.__file__
    return base, registration


# --------------------------------------------------------------------------------------------------
# Concrete upstream rounds


class Event(enum.Enum):
    DONE = "done"
    NONE = "none"
    NO_MAJORITY = "no_majority"
    NEGATIVE = "negative"
    FAIL = "fail"


COLLECTION_KEY = "collection"
SELECTION_KEY = "selection"


class Upstream:
    """The concrete round classes, one per kind, built on the imported upstream modules."""

    def __init__(self, base: types.ModuleType, registration: types.ModuleType) -> None:
        self.base = base
        self.rejections = (
            # What upstream's ABCI handler turns into a failed deliver_tx; anything else would crash the agent
            # and is treated as a bug in this script.
            base.SignatureNotValidError,
            base.TransactionNotValidError,
            base.TransactionTypeNotRecognizedError,
            base.LateArrivingTransaction,
        )

        @dataclasses.dataclass(frozen=True)
        class ValuePayload(base.BaseTxPayload):
            value: Optional[int]

        @dataclasses.dataclass(frozen=True)
        class VotePayload(base.BaseTxPayload):
            vote: Optional[bool]

        self.ValuePayload = ValuePayload
        self.VotePayload = VotePayload
        data_class = base.BaseSynchronizedData

        class SameUntilAll(base.CollectSameUntilAllRound):
            payload_class = ValuePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            collection_key = COLLECTION_KEY
            selection_key = SELECTION_KEY

            # The base class has no end_block; this is the one upstream's registration round writes.
            def end_block(self) -> Optional[Tuple[Any, Event]]:
                if not self.collection_threshold_reached:
                    return None
                data = self.synchronized_data.update(
                    synchronized_data_class=self.synchronized_data_class,
                    **{self.collection_key: self.serialized_collection, self.selection_key: self.common_payload},
                )
                return data, self.done_event

        class DifferentUntilAll(base.CollectDifferentUntilAllRound):
            payload_class = ValuePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            collection_key = COLLECTION_KEY

            def end_block(self) -> Optional[Tuple[Any, Event]]:
                if not self.collection_threshold_reached:
                    return None
                data = self.synchronized_data.update(
                    synchronized_data_class=self.synchronized_data_class,
                    **{self.collection_key: self.serialized_collection},
                )
                return data, self.done_event

        class SameUntilThreshold(base.CollectSameUntilThresholdRound):
            payload_class = ValuePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            none_event = Event.NONE
            no_majority_event = Event.NO_MAJORITY
            collection_key = COLLECTION_KEY
            selection_key = SELECTION_KEY

        class DifferentUntilThreshold(base.CollectDifferentUntilThresholdRound):
            payload_class = ValuePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            collection_key = COLLECTION_KEY
            required_block_confirmations = 0

        class NonEmptyUntilThreshold(base.CollectNonEmptyUntilThresholdRound):
            payload_class = ValuePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            none_event = Event.NONE
            collection_key = COLLECTION_KEY
            selection_key = SELECTION_KEY
            required_block_confirmations = 0

        class KeeperSends(base.OnlyKeeperSendsRound):
            payload_class = ValuePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            fail_event = Event.FAIL
            payload_key = SELECTION_KEY

        class Vote(base.VotingRound):
            payload_class = VotePayload
            synchronized_data_class = data_class
            done_event = Event.DONE
            negative_event = Event.NEGATIVE
            none_event = Event.NONE
            no_majority_event = Event.NO_MAJORITY
            collection_key = COLLECTION_KEY

        self.rounds = {
            "collect_same_until_all": SameUntilAll,
            "collect_different_until_all": DifferentUntilAll,
            "collect_same_until_threshold": SameUntilThreshold,
            "collect_different_until_threshold": DifferentUntilThreshold,
            "collect_non_empty_until_threshold": NonEmptyUntilThreshold,
            "only_keeper_sends": KeeperSends,
            "voting": Vote,
        }

        class Registration(registration.RegistrationRound):
            """Upstream's registration round (threshold, confirmations, rejoin) with the vectors' payload."""

            payload_class = ValuePayload
            synchronized_data_class = data_class

        class RecordingDB(base.AbciAppDB):
            """A real database whose `sync` records what it was given.

            `RegistrationRound` ends by syncing the database to the most-voted registration payload (in
            upstream, a serialized copy of another agent's database). The vectors' payloads are integers, so
            the sync is recorded here, as the decided value, instead of being loaded.
            """

            synced: Any = None

            def sync(self, serialized_data: Any) -> None:
                self.synced = serialized_data

        self.registration_round = Registration
        self.RecordingDB = RecordingDB
        self._confirmed: Dict[Tuple[str, int], type] = {}

    def round_class(self, kind: str, confirmations: int, registration: bool) -> type:
        """The class for a case: the kind's, or registration's, with `required_block_confirmations` set as a
        concrete upstream round sets it (a class attribute of a subclass)."""
        cls = self.registration_round if registration else self.rounds[kind]
        if confirmations == 0 and not registration:
            return cls
        key = (cls.__name__, confirmations)
        if key not in self._confirmed:
            name = f"{cls.__name__}Confirmed{confirmations}"
            self._confirmed[key] = type(name, (cls,), {"required_block_confirmations": confirmations})
        return self._confirmed[key]

    def new_round(self, case: dict) -> Any:
        """A fresh round for `case`, over a real `AbciAppDB` holding its agents (and keeper)."""
        base = self.base
        participants = case["participants"]
        setup = {
            "participants": tuple(participants),
            "all_participants": tuple(case.get("all_participants", participants)),
            # None: upstream derives the threshold from max_participants = len(all_participants).
            "consensus_threshold": None,
        }
        if case["keeper"] is not None:
            setup["most_voted_keeper_address"] = case["keeper"]
        registration = case.get("registration", False)
        db_class = self.RecordingDB if registration else base.AbciAppDB
        db = db_class(
            setup_data=base.AbciAppDB.data_to_lists(setup),
            cross_period_persisted_keys=frozenset(setup),
        )
        cls = self.round_class(case["kind"], case.get("confirmations", 0), registration)
        return cls(base.BaseSynchronizedData(db=db), context=None)

    def payload(self, kind: str, sender: str, value: Any) -> Any:
        if kind == "voting":
            return self.VotePayload(sender=sender, vote=value)
        return self.ValuePayload(sender=sender, value=value)

    @staticmethod
    def decided_value(case: dict, data: Any) -> Any:
        """What the round wrote into the synchronized data on DONE, in the vectors' shape."""
        kind, db = case["kind"], data.db
        if case.get("registration", False):
            # The payload the database was synced to, and the agents registered: the new participants.
            return {"value": db.synced, "participants": list(db.get("participants"))}
        if kind in ("collect_same_until_all", "collect_same_until_threshold", "only_keeper_sends"):
            return db.get(SELECTION_KEY)
        if kind == "collect_non_empty_until_threshold":
            return dict(sorted(db.get(SELECTION_KEY).items()))
        field = "vote" if kind == "voting" else "value"
        return {sender: payload[field] for sender, payload in sorted(db.get(COLLECTION_KEY).items())}

    def run(self, case: dict, blocks: List[List[dict]]) -> dict:
        """Feeds `blocks` one by one, as RoundSequence does, until end_block decides. A block without
        transactions still ends with `end_block` (upstream counts confirmations in such blocks too)."""
        kind = case["kind"]
        round_ = self.new_round(case)
        verdicts: List[List[bool]] = []
        outcome = None
        for index, block in enumerate(blocks):
            accepted = []
            for tx in block:
                transaction = self.base.Transaction(self.payload(kind, tx["sender"], tx["payload"]), signature="")
                try:
                    round_.check_transaction(transaction)
                except self.rejections:
                    accepted.append(False)
                    continue
                # A transaction that passed the check must be processed without error (upstream would crash).
                round_.process_transaction(transaction)
                accepted.append(True)
            verdicts.append(accepted)
            result = round_.end_block()
            if result is not None:
                data, event = result
                # By value: registration_abci has its own `Event` enum, with the same values.
                event = event.value
                value = self.decided_value(case, data) if event == Event.DONE.value else None
                outcome = {"block": index, "event": event, "value": value}
                break
        return {"txs": verdicts, "outcome": outcome}


# --------------------------------------------------------------------------------------------------
# Random cases


@dataclasses.dataclass(frozen=True)
class Family:
    """A group of cases drawn from one RNG stream: one round kind, with or without confirmations."""

    name: str
    kind: str
    # The `required_block_confirmations` a case draws from; (0,) for the plain kinds.
    confirmations: Tuple[int, ...] = (0,)
    # Whether the round is upstream's `RegistrationRound` (rejoining agents, the registered become participants).
    registration: bool = False


# 10 is `RegistrationRound`'s own requirement; the small ones keep most cases short.
CONFIRMATIONS = (1, 1, 2, 3, 10)

FAMILIES = tuple(Family(kind, kind) for kind in KINDS) + (
    Family(
        "collect_different_until_threshold with confirmations",
        "collect_different_until_threshold",
        CONFIRMATIONS,
    ),
    Family(
        "collect_non_empty_until_threshold with confirmations",
        "collect_non_empty_until_threshold",
        CONFIRMATIONS,
    ),
    Family("registration", "collect_same_until_threshold", CONFIRMATIONS, registration=True),
)


def rare_int(rng: random.Random) -> int:
    """Mostly tiny values, so payloads collide; now and then one that exercises the full i64 range."""
    if rng.random() < 0.03:
        return rng.choice([-1, -(2**62), 2**40, 2**63 - 1])
    return rng.randint(0, 3)


def value_source(rng: random.Random, kind: str, n: int) -> Callable[[], Any]:
    """A per-case payload distribution, varied so every outcome of every kind is reached often."""
    if kind == "collect_same_until_all":
        common, mismatch = rare_int(rng), rng.choice([0.0, 0.1, 0.3])
        return lambda: common if rng.random() >= mismatch else rare_int(rng)
    if kind == "collect_different_until_all":
        span = rng.choice([n, 2 * n, 3 * n])
        return lambda: rng.randint(0, span)
    if kind == "collect_different_until_threshold":
        return lambda: rare_int(rng)
    if kind in ("collect_non_empty_until_threshold", "only_keeper_sends"):
        empty = rng.choice([0.0, 0.3, 0.7, 1.0] if kind != "only_keeper_sends" else [0.2, 0.5])
        return lambda: None if rng.random() < empty else rare_int(rng)
    choices: List[Any] = [True, False, None] if kind == "voting" else [None, 0, 1, 2, 3]
    # An empty majority is as interesting as a value majority, so `None` is the common payload more often.
    common = rng.choice(choices if kind == "voting" else choices + [None, None])
    agreement = rng.choice([0.3, 0.6, 0.8, 0.95])
    return lambda: common if rng.random() < agreement else rng.choice(choices)


def registration_source(rng: random.Random) -> Callable[[], Any]:
    """Registration payloads: never empty (upstream's `RegistrationPayload.initialisation` is a `str`), mostly
    one common value, sometimes split so that no value reaches the threshold."""
    common, agreement = rng.randint(0, 3), rng.choice([0.5, 0.8, 0.95, 1.0])
    return lambda: common if rng.random() < agreement else rng.randint(0, 3)


def random_case(rng: random.Random, kind: str) -> dict:
    n = rng.randint(1, 10)
    participants = [f"agent_{i}" for i in range(n)]
    keeper = rng.choice(participants) if kind == "only_keeper_sends" else None
    outsider_rate = rng.choice([0.0, 0.0, 0.05, 0.15])
    repeat_rate = rng.choice([0.1, 0.25, 0.5])
    value = value_source(rng, kind, n)
    unsent = participants[:]
    rng.shuffle(unsent)

    def sender() -> str:
        if rng.random() < outsider_rate:
            return f"outsider_{rng.randint(0, 2)}"
        if kind == "only_keeper_sends" and rng.random() < 0.5:
            return keeper
        if unsent and rng.random() >= repeat_rate:
            return unsent.pop()
        return rng.choice(participants)

    # Until-all rounds need every participant, so their blocks are larger to make a decision likely.
    max_block = rng.randint(1, max(2, n + (3 if kind in UNTIL_ALL_KINDS else 1)))
    blocks = [
        [{"sender": sender(), "payload": value()} for _ in range(rng.randint(1, max_block))]
        for _ in range(rng.randint(1, 6))
    ]
    return {"kind": kind, "participants": participants, "keeper": keeper, "blocks": blocks}


def random_confirmed_case(rng: random.Random, family: Family) -> dict:
    """A case for a round with confirmations: more blocks, some of them empty, so that payloads arrive after
    the threshold and blocks are counted both with and without transactions.

    For registration, `participants` are the agents active in the period before (upstream's `participants`)
    and `all_participants` every agent registered at startup; the others rejoin by sending.
    """
    kind, n = family.kind, rng.randint(1, 10)
    everyone = [f"agent_{i}" for i in range(n)]
    participants = everyone
    if family.registration and rng.random() < 0.7:
        participants = sorted(rng.sample(everyone, rng.randint(1, n)), key=everyone.index)
    required = rng.choice(family.confirmations)
    outsider_rate = rng.choice([0.0, 0.0, 0.05, 0.15])
    repeat_rate = rng.choice([0.1, 0.25, 0.5])
    empty_rate = rng.choice([0.0, 0.2, 0.4])
    value = registration_source(rng) if family.registration else value_source(rng, kind, n)
    senders = everyone if family.registration else participants
    unsent = senders[:]
    rng.shuffle(unsent)

    def sender() -> str:
        if rng.random() < outsider_rate:
            return f"outsider_{rng.randint(0, 2)}"
        if unsent and rng.random() >= repeat_rate:
            return unsent.pop()
        return rng.choice(senders)

    # Small blocks, and enough of them to pass the confirmations most of the time, so that payloads often
    # arrive between the threshold and the decision.
    max_block = rng.randint(1, max(2, n // 2 + 1))
    blocks = [
        []
        if rng.random() < empty_rate
        else [{"sender": sender(), "payload": value()} for _ in range(rng.randint(1, max_block))]
        for _ in range(rng.randint(required, required + 2 * n // max_block + 3))
    ]
    case: Dict[str, Any] = {"kind": kind, "participants": participants}
    if family.registration:
        case["all_participants"] = everyone
    case.update(keeper=None, confirmations=required)
    if family.registration:
        case["registration"] = True
    case["blocks"] = blocks
    return case


def accepted_senders(case: dict) -> List[str]:
    """The agents a case's round takes payloads from."""
    return case.get("all_participants", case["participants"])


def is_outsider(case: dict, tx: dict) -> bool:
    return tx["sender"] not in accepted_senders(case)


def build_vector(upstream: Upstream, case: dict) -> dict:
    kind, blocks = case["kind"], case["blocks"]
    if kind not in OPTIONAL_PAYLOAD_KINDS or case.get("registration", False):
        assert all(tx["payload"] is not None for block in blocks for tx in block), case
    expected = upstream.run(case, blocks)
    fed = len(expected["txs"])
    without = None
    if kind in UNTIL_ALL_KINDS:
        stripped = [[tx for tx in block if not is_outsider(case, tx)] for block in blocks]
        without = upstream.run(case, stripped)
        # Blocks after upstream's decision stay in the case while the run without outsiders still needs them.
        fed = max(fed, len(without["txs"]))
    vector = dict(case, blocks=blocks[:fed], expected=expected)
    if without is not None and any(is_outsider(case, tx) for block in vector["blocks"] for tx in block):
        vector["expected_without_outsiders"] = without
    return vector


def generate(upstream: Upstream) -> List[dict]:
    vectors = []
    for family in FAMILIES:
        # One stream per family: changing one family's count or distribution leaves the others' cases alone.
        rng = random.Random(f"{SEED}:{family.name}")
        seen = set()
        while len(seen) < CASES_PER_FAMILY:
            if family.confirmations == (0,):
                case = random_case(rng, family.kind)
            else:
                case = random_confirmed_case(rng, family)
            vector = build_vector(upstream, case)
            key = json.dumps(
                [vector[k] if k in vector else None for k in ("participants", "all_participants", "keeper",
                                                              "confirmations", "blocks")],
            )
            if key in seen:
                continue
            seen.add(key)
            vectors.append(vector)
    return vectors


def late_payloads_counted(vector: dict) -> bool:
    """Whether the round accepted payloads after the first block that ended at its threshold, and decided
    on them: what confirmations are for."""
    agents = accepted_senders(vector)
    threshold = (2 * len(agents) + 1 + 2) // 3
    collected: Dict[str, Any] = {}
    reached_at = None
    for index, (block, verdicts) in enumerate(zip(vector["blocks"], vector["expected"]["txs"])):
        accepted = [tx for tx, ok in zip(block, verdicts) if ok]
        if reached_at is not None and accepted:
            return True
        collected.update((tx["sender"], tx["payload"]) for tx in accepted)
        counts = Counter(collected.values()) if vector.get("registration", False) else {0: len(collected)}
        if reached_at is None and max(counts.values(), default=0) >= threshold:
            reached_at = index
    return False


def family_of(vector: dict) -> str:
    if vector.get("registration", False):
        return "registration"
    if vector.get("confirmations", 0) > 0:
        return f"{vector['kind']} with confirmations"
    return vector["kind"]


def summarize(vectors: List[dict]) -> None:
    per_family: Dict[str, Counter] = {}
    for vector in vectors:
        outcome = vector["expected"]["outcome"]
        counter = per_family.setdefault(family_of(vector), Counter())
        counter["cases"] += 1
        counter[outcome["event"] if outcome else "undecided"] += 1
        counter["with outsiders"] += any(is_outsider(vector, tx) for block in vector["blocks"] for tx in block)
        if vector.get("confirmations", 0) > 0 and outcome is not None:
            # Decided with payloads accepted after the first block that ended at the threshold.
            counter["late payloads counted"] += late_payloads_counted(vector)
        if vector.get("registration", False):
            counter["rejoined"] += any(
                accepted and tx["sender"] not in vector["participants"]
                for block, verdicts in zip(vector["blocks"], vector["expected"]["txs"])
                for tx, accepted in zip(block, verdicts)
            )
    for family, counter in per_family.items():
        log(f"  {family}: " + ", ".join(f"{name} {count}" for name, count in sorted(counter.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdist", type=Path, help=f"a local {SDIST_NAME} instead of downloading it")
    parser.add_argument("--out", type=Path, default=OUT_FILE, help="where to write the vectors")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fsmc-vectors-") as tmp:
        workdir = Path(tmp)
        sdist = fetch_sdist(workdir, args.sdist)
        upstream = Upstream(*load_upstream(extract_skills(sdist, workdir)))
        vectors = generate(upstream)
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for vector in vectors:
            out.write(json.dumps(vector, separators=(",", ":")) + "\n")
    log(f"wrote {len(vectors)} cases to {args.out} in {time.monotonic() - started:.1f}s")
    summarize(vectors)


if __name__ == "__main__":
    main()
