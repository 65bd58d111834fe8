#!/usr/bin/env python3
"""Regenerates rounds.jsonl: round-kind test vectors whose expected results come from Open Autonomy's own code.

The round classes are not reimplemented here. The script downloads the pinned source distribution of
open-autonomy from PyPI, imports `abstract_round_abci/base.py` (and the `utils.py` next to it) from that
download, and feeds random cases to concrete subclasses of the upstream round classes the way upstream's
`RoundSequence` feeds a block: `check_transaction` then `process_transaction` for every transaction, then one
`end_block`. Nothing of upstream ends up in the repository; only this script and its output do.

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
SKILL_DIR = "packages/valory/skills/abstract_round_abci"
SKILL_PACKAGE = "packages.valory.skills.abstract_round_abci"
UPSTREAM_FILES = ("base.py", "utils.py")

SEED = "fsmc-upstream-rounds-v1"
CASES_PER_KIND = 430

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


def extract_skill(sdist: Path, workdir: Path) -> Path:
    """Extracts only the two modules the vectors need."""
    root = SDIST_NAME[: -len(".tar.gz")]
    target = workdir / "upstream"
    with tarfile.open(sdist) as tar:
        for name in UPSTREAM_FILES:
            member = tar.getmember(f"{root}/{SKILL_DIR}/{name}")
            data = tar.extractfile(member)
            assert data is not None
            path = target / SKILL_DIR / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data.read())
    return target / SKILL_DIR


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


def install_stubs(skill_dir: Path) -> None:
    """Fakes the imports of base.py and utils.py that the round classes never use at run time.

    The AEA framework, the ABCI connection and protocol, the ledger connection and the BLS libraries are only
    needed by the parts of base.py that talk to Tendermint, sign or verify; the round classes touch none of
    it. Stubbing them keeps the generator free of any installation. `enforce` is reimplemented (three lines)
    because the majority check calls it.
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
    # The skill package itself is a namespace over the extracted directory, so its __init__ (which needs
    # `aea.configurations`) is skipped while `base` and `utils` load from the downloaded files.
    stub_module(SKILL_PACKAGE, __path__=[str(skill_dir)])

    # utils.py: the BLS names are only used by the drand verifier; typing_extensions only by type checks.
    stub_module("eth_typing")
    stub_module("eth_typing.bls", BLSPubkey=bytes, BLSSignature=bytes)
    stub_module("py_ecc")
    stub_module("py_ecc.bls", G2Basic=stub_class("G2Basic"))
    stub_module(
        "typing_extensions",
        **{n: getattr(typing, n) for n in ("Literal", "TypeGuard", "TypedDict")},
    )


def load_upstream(skill_dir: Path) -> types.ModuleType:
    install_stubs(skill_dir)
    base = importlib.import_module(f"{SKILL_PACKAGE}.base")
    assert Path(base.__file__).resolve().is_relative_to(skill_dir.resolve()), base.__file__
    return base


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
    """The concrete round classes, one per kind, built on the imported base module."""

    def __init__(self, base: types.ModuleType) -> None:
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

    def new_round(self, kind: str, participants: List[str], keeper: Optional[str]) -> Any:
        base = self.base
        setup = {
            "participants": tuple(participants),
            "all_participants": tuple(participants),
            # None: upstream derives the threshold from max_participants = len(all_participants).
            "consensus_threshold": None,
        }
        if keeper is not None:
            setup["most_voted_keeper_address"] = keeper
        db = base.AbciAppDB(
            setup_data=base.AbciAppDB.data_to_lists(setup),
            cross_period_persisted_keys=frozenset(setup),
        )
        return self.rounds[kind](base.BaseSynchronizedData(db=db), context=None)

    def payload(self, kind: str, sender: str, value: Any) -> Any:
        if kind == "voting":
            return self.VotePayload(sender=sender, vote=value)
        return self.ValuePayload(sender=sender, value=value)

    @staticmethod
    def decided_value(kind: str, data: Any) -> Any:
        """What the round wrote into the synchronized data on DONE, in the vectors' shape."""
        db = data.db
        if kind in ("collect_same_until_all", "collect_same_until_threshold", "only_keeper_sends"):
            return db.get(SELECTION_KEY)
        if kind == "collect_non_empty_until_threshold":
            return dict(sorted(db.get(SELECTION_KEY).items()))
        field = "vote" if kind == "voting" else "value"
        return {sender: payload[field] for sender, payload in sorted(db.get(COLLECTION_KEY).items())}

    def run(self, kind: str, participants: List[str], keeper: Optional[str], blocks: List[List[dict]]) -> dict:
        """Feeds `blocks` one by one, as RoundSequence does, until end_block decides."""
        round_ = self.new_round(kind, participants, keeper)
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
                value = self.decided_value(kind, data) if event is Event.DONE else None
                outcome = {"block": index, "event": event.value, "value": value}
                break
        return {"txs": verdicts, "outcome": outcome}


# --------------------------------------------------------------------------------------------------
# Random cases


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


def is_outsider(case: dict, tx: dict) -> bool:
    return tx["sender"] not in case["participants"]


def build_vector(upstream: Upstream, case: dict) -> dict:
    kind, participants, keeper, blocks = case["kind"], case["participants"], case["keeper"], case["blocks"]
    if kind not in OPTIONAL_PAYLOAD_KINDS:
        assert all(tx["payload"] is not None for block in blocks for tx in block), case
    expected = upstream.run(kind, participants, keeper, blocks)
    fed = len(expected["txs"])
    without = None
    if kind in UNTIL_ALL_KINDS:
        stripped = [[tx for tx in block if not is_outsider(case, tx)] for block in blocks]
        without = upstream.run(kind, participants, keeper, stripped)
        # Blocks after upstream's decision stay in the case while the run without outsiders still needs them.
        fed = max(fed, len(without["txs"]))
    kept = blocks[:fed]
    vector = {"kind": kind, "participants": participants, "keeper": keeper, "blocks": kept, "expected": expected}
    if without is not None and any(is_outsider(case, tx) for block in kept for tx in block):
        vector["expected_without_outsiders"] = without
    return vector


def generate(upstream: Upstream) -> List[dict]:
    vectors = []
    for kind in KINDS:
        # One stream per kind: changing one kind's count or distribution leaves the other kinds' cases alone.
        rng = random.Random(f"{SEED}:{kind}")
        seen = set()
        while len(seen) < CASES_PER_KIND:
            vector = build_vector(upstream, random_case(rng, kind))
            key = json.dumps([vector["participants"], vector["keeper"], vector["blocks"]], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            vectors.append(vector)
    return vectors


def summarize(vectors: List[dict]) -> None:
    per_kind: Dict[str, Counter] = {}
    for vector in vectors:
        outcome = vector["expected"]["outcome"]
        counter = per_kind.setdefault(vector["kind"], Counter())
        counter["cases"] += 1
        counter[outcome["event"] if outcome else "undecided"] += 1
        counter["with outsiders"] += any(is_outsider(vector, tx) for block in vector["blocks"] for tx in block)
    for kind, counter in per_kind.items():
        log(f"  {kind}: " + ", ".join(f"{name} {count}" for name, count in counter.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdist", type=Path, help=f"a local {SDIST_NAME} instead of downloading it")
    parser.add_argument("--out", type=Path, default=OUT_FILE, help="where to write the vectors")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fsmc-vectors-") as tmp:
        workdir = Path(tmp)
        sdist = fetch_sdist(workdir, args.sdist)
        upstream = Upstream(load_upstream(extract_skill(sdist, workdir)))
        vectors = generate(upstream)
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for vector in vectors:
            out.write(json.dumps(vector, separators=(",", ":")) + "\n")
    log(f"wrote {len(vectors)} cases to {args.out} in {time.monotonic() - started:.1f}s")
    summarize(vectors)


if __name__ == "__main__":
    main()
