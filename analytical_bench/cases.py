"""Benchmark cases as typed data: :class:`Case` and :class:`Dataset`.

A dataset file is one JSON object: ``{"name", "version", "seed", "checksum",
"cases": [...]}``.  The checksum is the sha256 of the canonical JSON of
everything but the checksum itself (sorted keys, no whitespace, UTF-8), and
it is verified on load, so an edited or truncated dataset is refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from uac import InputError

from .files import atomic_write_text

#: the kinds of answer a case can have; scoring is chosen by kind
ANSWER_KINDS = ("int", "float", "string", "set", "list")

#: the record counts of the paper's 100 cases
PAPER_TIERS = (20, 50, 100, 200, 500)
#: the extended record counts (``generate --extended``)
EXTENDED_TIERS = (1000, 2000, 5000, 10000)

#: dataset format; bump when the case shape or the generator output changes
DATASET_VERSION = "1"


@dataclass(frozen=True)
class Case:
    """One question over one user's records, with its gold answer.

    ``records`` is the collection of ``record_type``; cross-domain cases carry
    the second collection in ``related`` (collection name -> records).
    ``support`` lists the ids of the records the gold is computed from.
    """

    id: str
    suite: str  # "paper" | "cross" | "extended"
    record_type: str
    n: int
    question_id: str
    pattern: str
    question: str
    answer_kind: str
    gold: Any
    records: list[dict[str, Any]]
    support: list[str] = field(default_factory=list)
    related: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.answer_kind not in ANSWER_KINDS:
            raise InputError(
                f"case {self.id}: answer_kind {self.answer_kind!r} is not one of {', '.join(ANSWER_KINDS)}."
            )

    @property
    def collections(self) -> dict[str, list[dict[str, Any]]]:
        """Every collection of the case, the primary one first."""
        return {self.record_type: self.records, **self.related}

    @property
    def record_count(self) -> int:
        return sum(len(records) for records in self.collections.values())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Case":
        try:
            return cls(
                id=data["id"],
                suite=data["suite"],
                record_type=data["record_type"],
                n=int(data["n"]),
                question_id=data["question_id"],
                pattern=data["pattern"],
                question=data["question"],
                answer_kind=data["answer_kind"],
                gold=data["gold"],
                records=list(data["records"]),
                support=list(data.get("support", [])),
                related={k: list(v) for k, v in (data.get("related") or {}).items()},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"a case is malformed ({exc!r}): {str(data)[:120]}.") from None


def _canonical(payload: dict[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Dataset:
    name: str
    version: str
    seed: int
    cases: list[Case]

    def content(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "seed": self.seed,
            "cases": [case.to_json() for case in self.cases],
        }

    @property
    def checksum(self) -> str:
        return hashlib.sha256(_canonical(self.content()).encode("utf-8")).hexdigest()

    def to_text(self) -> str:
        """The file text: canonical JSON (one line) with the checksum."""
        payload = self.content()
        payload["checksum"] = self.checksum
        return _canonical(payload) + "\n"

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, self.to_text())
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Dataset":
        path = Path(path)
        try:
            payload = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            raise InputError(
                f"dataset file {path} does not exist.",
                hint="Create one with `python -m analytical_bench generate --out FILE`.",
            ) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"dataset file {path} is not valid UTF-8 JSON ({exc}).") from None
        if not isinstance(payload, dict) or "cases" not in payload:
            raise InputError(f"dataset file {path} is not an analytical_bench dataset (no 'cases').")
        recorded = payload.pop("checksum", None)
        try:
            dataset = cls(
                name=str(payload["name"]),
                version=str(payload["version"]),
                seed=int(payload["seed"]),
                cases=[Case.from_json(item) for item in payload["cases"]],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"dataset file {path} is malformed ({exc!r}).") from None
        actual = dataset.checksum
        if recorded != actual:
            raise InputError(
                f"dataset file {path} fails its checksum (recorded {str(recorded)[:12]}..., content {actual[:12]}...).",
                hint="The file was edited or damaged; regenerate it with `python -m analytical_bench generate`.",
            )
        return dataset

    def select(
        self,
        *,
        tiers: list[int] | None = None,
        suites: list[str] | None = None,
        limit: int | None = None,
    ) -> "Dataset":
        """A sub-dataset (same name/version/seed) with the chosen cases, in order."""
        cases = [case for case in self.cases if (not tiers or case.n in tiers) and (not suites or case.suite in suites)]
        if limit is not None:
            cases = cases[:limit]
        return Dataset(self.name, self.version, self.seed, cases)
