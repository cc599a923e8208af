"""The systems the harness evaluates, each behind the same small interface.

* ``uac`` -- one user project per conversation: Phase 1 ingest of the LoCoMo
  file (``UserMemory.ingest``), Phase 2 ``compile``, answers from
  ``UserMemory.ask`` with the question date set to the last session date;
  offline, ranked hits of ``UserMemory.search`` per channel (facts, archive,
  fused ``all``).
* ``full_context`` -- the whole conversation, session by session with dates,
  in the reader's prompt (no retrieval).
* ``rag`` -- plain dense retrieval of raw turns with the bundled embedder
  (top-k by cosine similarity, no BM25, no fusion), the turns in the prompt.

``prepare`` builds what a system needs for one conversation (and reports its
cost); ``answer`` needs a model; ``rank`` (offline retrieval) does not.

Every reader answers in the same style -- a short phrase, no citations, the
refusal :data:`REFUSAL` -- and in one reasoning mode for the whole run:
``direct``, or ``step_by_step`` (the UaC paper's mode: reasoning, then the
answer on the last line, which is what gets scored).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from uac import (
    REASONING_MODES,
    InputError,
    LLMClient,
    LocomoConversation,
    LocomoQuestion,
    Message,
    NotAProject,
    ProjectNotFound,
    Turn,
    final_answer_line,
    get_embedder,
    normalize_turn_ids,
    require_llm,
)

from .prompts import render

if TYPE_CHECKING:
    import numpy

    from uac import Session, UserMemory

SYSTEMS = ("uac", "full_context", "rag")
UAC_CHANNELS = ("facts", "archive", "all")
#: what every reader answers when the memory does not hold the answer
REFUSAL = "Not mentioned in the conversation."
#: uac's answer style for the benchmark: the baselines' reader prompt asks for the same
UAC_STYLE = {"citations": False, "refusal": REFUSAL, "answer_length": "phrase"}


def check_reasoning(mode: str) -> str:
    if mode not in REASONING_MODES:
        raise InputError(f"unknown reasoning mode {mode!r}.", hint=f"Use one of {', '.join(REASONING_MODES)}.")
    return mode


def kept_answer(text: str, reasoning: str) -> str:
    """What gets scored: the reply, or its last answer line in step-by-step mode."""
    return final_answer_line(text) if reasoning == "step_by_step" else text


LLMFactory = Callable[[], "LLMClient | None"]

# citations the uac reader appends: [conv-26_s3-f12], [F12, F13], [D1:3] (ids hold a digit)
_ID = r"[\w:.\-/#]*\d[\w:.\-/#]*"
_CITATION = re.compile(rf"\s*\[{_ID}(?:\s*[,;]\s*{_ID})*\]")


def strip_citations(text: str | None) -> str:
    """The answer without bracketed source ids, whitespace folded."""
    return " ".join(_CITATION.sub("", text or "").split())


def shown_text(turn: Turn) -> str:
    """A turn as the baselines show it: its text, plus ``[shares an image: caption]``."""
    if turn.image_caption:
        return f"{turn.text} [shares an image: {turn.image_caption}]".strip()
    return turn.text


def session_number(session: "Session") -> int:
    """The ``N`` of the ``session_N`` a LoCoMo session was read from."""
    return int(session.meta["session_number"])


def dir_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@dataclass
class Prepared:
    """What building one system's memory of one conversation cost."""

    system: str
    sample_id: str
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    index_bytes: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "sample_id": self.sample_id,
            "seconds": round(self.seconds, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "index_bytes": dict(self.index_bytes),
            "details": self.details,
        }


@dataclass
class Prediction:
    answer: str | None
    prediction: str
    #: ids of the retrieved items, best first (empty for full context)
    retrieved_ids: list[str]
    #: the turn ids the retrieved context covers (None: the whole conversation was given)
    retrieved_turns: list[str] | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds: float = 0.0
    mode: str = "llm"
    #: the reasoning mode that ran (direct | step_by_step; None: no model answered)
    reasoning: str | None = None


@dataclass(frozen=True)
class RankedItem:
    """One retrieved item: its id, the turns it covers, its session number."""

    id: str
    turns: tuple[str, ...]
    session: int | None


def _session_number(session_id: str | None) -> int | None:
    match = re.search(r"_s(\d+)$", session_id or "")
    return int(match.group(1)) if match else None


class System:
    name = ""

    def warm_up(self) -> None:
        """Called once in the main thread before work is spread over threads."""

    def prepare(self, conversation: LocomoConversation) -> Prepared:
        raise NotImplementedError

    def answer(self, conversation: LocomoConversation, question: LocomoQuestion) -> Prediction:
        raise NotImplementedError

    def channels(self) -> tuple[str, ...]:
        """The retrieval channels ``rank`` serves (none: not a retrieval system)."""
        return ()

    def rank(
        self, conversation: LocomoConversation, questions: list[LocomoQuestion], channel: str, k: int
    ) -> list[list[RankedItem]]:
        raise NotImplementedError


def _reader_system(conversation: LocomoConversation, mode: str, reasoning: str) -> str:
    return render(
        "reader_system",
        speaker_a=conversation.speaker_a,
        speaker_b=conversation.speaker_b,
        today=conversation.last_date.isoformat(),
        mode=mode,
        step_by_step=reasoning == "step_by_step",
        refusal=REFUSAL,
    )


def _chat(llm: LLMClient, system: str, prompt: str, purpose: str) -> tuple[str, int, int, float]:
    started = time.perf_counter()
    response = llm.chat([Message("system", system), Message("user", prompt)], purpose=purpose)
    prompt_tokens, completion_tokens = response.usage.footprint  # from the model or the cache alike
    return ((response.content or "").strip(), prompt_tokens, completion_tokens, time.perf_counter() - started)


class FullContextSystem(System):
    name = "full_context"

    def __init__(self, llm: LLMClient | None, *, reasoning: str = "direct") -> None:
        self.llm = llm
        self.reasoning = check_reasoning(reasoning)

    def prepare(self, conversation: LocomoConversation) -> Prepared:
        return Prepared(self.name, conversation.sample_id, details={"turns": conversation.turn_count})

    def answer(self, conversation: LocomoConversation, question: LocomoQuestion) -> Prediction:
        llm = require_llm(self.llm, "the full_context system")
        sessions = [
            {
                "number": session_number(s),
                "date_text": s.date_text,
                "turns": [{"dia_id": t.turn_id, "speaker": t.speaker, "full_text": shown_text(t)} for t in s.turns],
            }
            for s in conversation.sessions
        ]
        step = self.reasoning == "step_by_step"
        prompt = render("full_context", sessions=sessions, question=question.question, step_by_step=step)
        text, prompt_tokens, completion_tokens, seconds = _chat(
            llm, _reader_system(conversation, "full_context", self.reasoning), prompt, "locomo-full-context"
        )
        kept = strip_citations(kept_answer(text, self.reasoning))
        return Prediction(text, kept, [], None, prompt_tokens, completion_tokens, seconds, reasoning=self.reasoning)


class RagSystem(System):
    """Dense top-k over raw turns; the turn vectors are cached under ``cache_dir``."""

    name = "rag"

    def __init__(self, llm: LLMClient | None, cache_dir: Path, *, k: int = 20, reasoning: str = "direct") -> None:
        self.llm = llm
        self.reasoning = check_reasoning(reasoning)
        self.cache_dir = Path(cache_dir)
        self.k = k
        self._vectors: dict[str, "numpy.ndarray"] = {}
        self._lock = threading.Lock()

    @staticmethod
    def turn_text(speaker: str, text: str) -> str:
        return f"{speaker}: {text}"

    def _path(self, conversation: LocomoConversation) -> Path:
        return self.cache_dir / f"{conversation.sample_id}.npy"

    def _turn_vectors(self, conversation: LocomoConversation) -> "numpy.ndarray":
        import numpy as np

        with self._lock:
            cached = self._vectors.get(conversation.sample_id)
            if cached is not None:
                return cached
            path = self._path(conversation)
            vectors = np.load(path) if path.exists() else None
            if vectors is None or vectors.shape[0] != conversation.turn_count:
                texts = [self.turn_text(t.speaker, shown_text(t)) for _, t in conversation.turns]
                vectors = get_embedder().encode(texts)
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "wb") as handle:
                    np.save(handle, vectors)
            self._vectors[conversation.sample_id] = vectors
            return vectors

    def prepare(self, conversation: LocomoConversation) -> Prepared:
        started = time.perf_counter()
        self._turn_vectors(conversation)
        return Prepared(
            self.name,
            conversation.sample_id,
            seconds=time.perf_counter() - started,
            index_bytes={"vectors": dir_bytes(self._path(conversation))},
            details={"turns": conversation.turn_count},
        )

    def channels(self) -> tuple[str, ...]:
        return ("turns",)

    def _top(self, conversation: LocomoConversation, queries: list[str], k: int) -> list[list[int]]:
        import numpy as np

        vectors = self._turn_vectors(conversation)
        if not queries:
            return []
        scores = get_embedder().encode(queries) @ vectors.T
        k = min(k, vectors.shape[0])
        ranked = []
        for row in scores:
            top = np.argpartition(-row, k - 1)[:k]
            ranked.append([int(i) for i in top[np.argsort(-row[top], kind="stable")]])
        return ranked

    def rank(
        self, conversation: LocomoConversation, questions: list[LocomoQuestion], channel: str, k: int
    ) -> list[list[RankedItem]]:
        turns = conversation.turns
        out = []
        for indices in self._top(conversation, [q.question for q in questions], k):
            items = []
            for i in indices:
                session, turn = turns[i]
                items.append(RankedItem(turn.turn_id, normalize_turn_ids([turn.turn_id]), session_number(session)))
            out.append(items)
        return out

    def answer(self, conversation: LocomoConversation, question: LocomoQuestion) -> Prediction:
        llm = require_llm(self.llm, "the rag system")
        started = time.perf_counter()
        indices = self._top(conversation, [question.question], self.k)[0]
        turns = conversation.turns
        hits = [
            {
                "dia_id": turns[i][1].turn_id,
                "date_text": turns[i][0].date_text,
                "speaker": turns[i][1].speaker,
                "text": shown_text(turns[i][1]),
            }
            for i in indices
        ]
        prompt = render("rag", hits=hits, question=question.question, step_by_step=self.reasoning == "step_by_step")
        text, prompt_tokens, completion_tokens, _ = _chat(
            llm, _reader_system(conversation, "rag", self.reasoning), prompt, "locomo-rag"
        )
        ids = [h["dia_id"] for h in hits]
        return Prediction(
            text,
            strip_citations(kept_answer(text, self.reasoning)),
            ids,
            list(normalize_turn_ids(ids)),
            prompt_tokens,
            completion_tokens,
            time.perf_counter() - started,
            reasoning=self.reasoning,
        )


class UacSystem(System):
    """One uac user project per conversation under ``projects_dir``."""

    name = "uac"

    def __init__(
        self,
        data_path: Path,
        projects_dir: Path,
        llm_factory: LLMFactory,
        *,
        offline: bool,
        compile: bool = True,
        compile_mode: str | None = None,
        reasoning: str = "direct",
    ) -> None:
        self.reasoning = check_reasoning(reasoning)
        self.data_path = Path(data_path)
        self.projects_dir = Path(projects_dir)
        self.llm_factory = llm_factory
        self.offline = offline
        self.compile = compile
        self.compile_mode = compile_mode
        self._memories: dict[str, "UserMemory"] = {}
        self._lock = threading.Lock()
        self._ready: set[str] = set()
        self._ready_lock = threading.Lock()

    def warm_up(self) -> None:
        """Import what compile formats code with before threads share it: a module
        first imported by two threads at once can be seen half-initialised."""
        if self.compile:
            import black  # noqa: F401

    def project_path(self, conversation: LocomoConversation) -> Path:
        return self.projects_dir / conversation.sample_id

    def memory(self, conversation: LocomoConversation) -> "UserMemory":
        from uac import UserMemory

        with self._lock:
            memory = self._memories.get(conversation.sample_id)
            if memory is None:
                path = self.project_path(conversation)
                llm = None if self.offline else self.llm_factory()
                try:
                    memory = UserMemory.open(path, llm=llm)
                except (ProjectNotFound, NotAProject):
                    memory = UserMemory.create(
                        path, user_name=f"{conversation.speaker_a} and {conversation.speaker_b}", llm=llm
                    )
                self._memories[conversation.sample_id] = memory
            return memory

    def _usage(self, memory: "UserMemory") -> tuple[int, int]:
        llm = memory.llm if not self.offline else None
        return llm.usage.footprint if llm is not None else (0, 0)

    def prepare(self, conversation: LocomoConversation) -> Prepared:
        memory = self.memory(conversation)
        before = self._usage(memory)
        started = time.perf_counter()
        report = memory.ingest(
            self.data_path,
            format="locomo",
            sample_id=conversation.sample_id,
            extractor="rules" if self.offline else None,
            compile=False,  # compiled below, and timed apart
        )
        ingest_seconds = time.perf_counter() - started
        details: dict[str, Any] = {"ingest": report.to_json(), "ingest_seconds": round(ingest_seconds, 3)}
        compile_seconds = 0.0
        if self.compile:
            # Phase 2.  Offline runs always build the deterministic typed view
            # (mode "offline" never calls a model, even when one is configured).
            mode = "offline" if self.offline else self.compile_mode
            compile_started = time.perf_counter()
            compiled = memory.compile(mode)
            compile_seconds = time.perf_counter() - compile_started
            details["compile"] = compiled.to_json() if hasattr(compiled, "to_json") else str(compiled)
        else:
            details["compile"] = "skipped (--no-compile)"
        details["compile_seconds"] = round(compile_seconds, 3)
        after = self._usage(memory)
        root = memory.root
        return Prepared(
            self.name,
            conversation.sample_id,
            seconds=ingest_seconds + compile_seconds,
            prompt_tokens=after[0] - before[0],
            completion_tokens=after[1] - before[1],
            index_bytes={"uac": dir_bytes(root / ".uac"), "memory": dir_bytes(root / "memory")},
            details=details,
        )

    def channels(self) -> tuple[str, ...]:
        return UAC_CHANNELS

    def rank(
        self, conversation: LocomoConversation, questions: list[LocomoQuestion], channel: str, k: int
    ) -> list[list[RankedItem]]:
        if channel not in UAC_CHANNELS:
            raise InputError(f"uac has no channel {channel!r}.", hint=f"Use one of {', '.join(UAC_CHANNELS)}.")
        memory = self.memory(conversation)
        # UserMemory.search for every question at once: the questions are
        # embedded in one batch (one model call per conversation, not per question).
        ranked = memory.search_many([q.question for q in questions], k=k, channel=channel, as_of=conversation.last_date)
        return [
            [
                RankedItem(str(hit.id), normalize_turn_ids(hit.evidence or ()), _session_number(hit.session_id))
                for hit in hits
            ]
            for hits in ranked
        ]

    def _ensure_ready(self, conversation: LocomoConversation, memory: "UserMemory") -> None:
        # The indexes open and build their in-memory parts on first search; do
        # that once per project before threads search it concurrently.
        with self._ready_lock:
            if conversation.sample_id not in self._ready:
                memory.search(conversation.questions[0].question, k=1, channel="all")
                self._ready.add(conversation.sample_id)

    def answer(self, conversation: LocomoConversation, question: LocomoQuestion) -> Prediction:
        memory = self.memory(conversation)
        self._ensure_ready(conversation, memory)
        result = memory.ask(question.question, as_of=conversation.last_date, reasoning=self.reasoning, **UAC_STYLE)
        items = list(result.facts) + list(result.archive)
        turns = normalize_turn_ids(turn for item in items for turn in item.evidence)
        return Prediction(
            result.reasoning_text or result.answer,
            strip_citations(result.answer),
            [item.id for item in items],
            list(turns),
            *(result.usage.footprint if result.usage is not None else (result.prompt_tokens, result.completion_tokens)),
            result.latency_seconds,
            mode=result.mode,
            reasoning=result.reasoning,
        )
