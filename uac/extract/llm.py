"""The LLM extractor: a jinja2 prompt per window of turns, JSON output, fail-soft.

Sessions longer than one prompt are cut into windows of whole turns (by
characters, never truncating a turn); each window after the first repeats a
few earlier turns as context that may not be cited.

What a model writes never stops an ingest:

* the reply is read by the tolerant reader (JSON in prose, fences, reasoning);
* every item is read on its own (:mod:`.coerce`): valid items are kept,
  common slips are coerced (dates in other forms, evidence as a string, a
  range or bare numbers, bracketed ids, context turns dropped from evidence);
* the items that still fail go back to the model once, with their problems;
  after that an unreadable optional field is cleared and an item without usable
  text or evidence is dropped (and counted);
* a reply cut off at the token limit splits the window in two and retries;
* a window whose replies stay unusable is extracted by the rules extractor
  (its facts say so in ``meta["fallback"]``).

Errors of the endpoint itself (down, refusing the key, a prompt cut by a too
small context window) still raise: they are not what a model wrote, and
going on would only repeat them.  :attr:`LLMExtractor.stats` counts it all.

The windows of a session are independent calls: they run side by side, up to
the client's concurrency (:func:`uac.llm.parallel.map_ordered`), each counted
apart and merged in window order, so the facts and the counts are the same at
every concurrency.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields
from typing import Any, Sequence

from ..errors import InvalidReply, ReplyCutOff
from ..facts.model import Fact
from ..fieldjson import fields_json
from ..llm import ChatResponse, LLMClient, Message, parse_structured, system, user
from ..llm.parallel import map_ordered
from ..llm.structured import list_reply_outline, list_reply_schema, looks_binary
from ..sessions.model import Session, Turn
from ..templating import render_prompt
from .base import ExtractedFact
from .coerce import KnownFacts, TurnIds, read_item
from .rules import RuleExtractor

FACTS_SCHEMA = list_reply_schema(
    "facts",
    {
        "text": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}},
        "event_date": {"type": ["string", "null"]},
        "supersedes": {"type": ["array", "null"], "items": {"type": "string"}},
        "speaker": {"type": ["string", "null"]},
    },
)
#: the reply's outer shape; items are read one by one (:func:`.coerce.read_item`)
_OUTER_SCHEMA = list_reply_outline("facts")


@dataclass(frozen=True)
class Window:
    index: int
    turns: tuple[Turn, ...]
    context: tuple[Turn, ...]

    def describe(self, session: Session) -> str:
        return f"session {session.session_id} window {self.index + 1} (turns {self.turns[0].turn_id}..{self.turns[-1].turn_id})"


def make_windows(turns: Sequence[Turn], *, max_chars: int, context_turns: int) -> list[Window]:
    """Whole turns packed into windows of at most ``max_chars`` (a longer single turn gets its own)."""
    windows: list[Window] = []
    current: list[Turn] = []
    size = 0
    start = 0
    for position, turn in enumerate(turns):
        length = len(turn.speaker) + len(turn.full_text) + 16
        if current and size + length > max_chars:
            windows.append(Window(len(windows), tuple(current), tuple(turns[max(0, start - context_turns) : start])))
            current, size, start = [], 0, position
        current.append(turn)
        size += length
    if current:
        windows.append(Window(len(windows), tuple(current), tuple(turns[max(0, start - context_turns) : start])))
    return windows


def split_window(window: Window, context_turns: int) -> tuple[Window, Window]:
    """The two halves of a window (the second half's context is the end of the first)."""
    middle = len(window.turns) // 2
    first = Window(window.index, window.turns[:middle], window.context)
    before = (window.context + window.turns[:middle])[-context_turns:] if context_turns else ()
    return first, Window(window.index, window.turns[middle:], tuple(before))


@dataclass
class _WindowRequest:
    """One window's extraction request: the messages, and what a reply is checked against."""

    session: Session
    window: Window
    messages: list[Message]
    turns: TurnIds
    known: KnownFacts
    #: the ids of the window's own turns (the only evidence a fact may cite)
    allowed: list[str]
    purpose: str


@dataclass
class ExtractionStats:
    """What the extractor did with the model's replies (the ``extraction`` block of an ingest report)."""

    windows: int = 0
    #: items the model returned in its first replies
    items: int = 0
    #: facts kept from model replies (coerced and repaired ones included)
    kept: int = 0
    #: kept facts that needed a coercion
    coerced: int = 0
    #: facts recovered by the repair round
    repaired: int = 0
    #: items that stayed invalid after the repair round
    dropped: int = 0
    #: windows cut off at the token limit and split
    windows_split: int = 0
    #: windows extracted by the rules extractor because the model's replies were unusable
    windows_fallback: int = 0
    fallback_facts: int = 0
    repair_calls: int = 0
    #: the first few problems seen, for the report
    problems: list[str] = field(default_factory=list)

    def note(self, problems: Sequence[str]) -> None:
        for problem in problems:
            if len(self.problems) < 10:
                self.problems.append(problem)

    def merge(self, other: "ExtractionStats") -> None:
        """Add the counts of ``other`` (a later unit of work) to these."""
        for item in fields(self):
            if item.name != "problems":
                setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))
        self.note(other.problems)

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


def _key(text: str) -> str:
    return " ".join(text.lower().split())


#: at most this much of a rejected reply is shown back to the model in the repair round
ECHO_CHARS = 20_000


def _echo(response: ChatResponse) -> Message:
    """The rejected reply as the assistant turn of the repair round (bounded, text only)."""
    content = response.content or ""
    if looks_binary(content):
        content = "(a reply that was not text)"
    elif len(content) > ECHO_CHARS:
        content = content[:ECHO_CHARS] + f"\n... ({len(content) - ECHO_CHARS:,} more characters not shown)"
    return Message("assistant", content)


class _Unusable(Exception):
    """A window's replies could not be read at all (internal)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class LLMExtractor:
    name = "llm"

    def __init__(
        self, client: LLMClient, *, window_chars: int = 12_000, context_turns: int = 3, known_facts: int = 30
    ) -> None:
        self.client = client
        self.window_chars = window_chars
        self.context_turns = context_turns
        self.known_facts = known_facts
        self._stats = ExtractionStats()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._rules = RuleExtractor()

    @property
    def stats(self) -> ExtractionStats:
        """What the extractor did so far (while a window is extracted, on its worker
        thread: that window's own count, merged in order when the session is done)."""
        current = getattr(self._local, "stats", None)
        return self._stats if current is None else current

    def extract(self, session: Session, known: Sequence[Fact] = ()) -> list[ExtractedFact]:
        facts, stats = self.extract_apart(session, known)
        self.merge_stats(stats)
        return facts

    def extract_apart(
        self, session: Session, known: Sequence[Fact] = ()
    ) -> tuple[list[ExtractedFact], ExtractionStats]:
        """The session's facts and what it took, without adding that to :attr:`stats`
        (sessions extracted side by side are merged in session order: :meth:`merge_stats`)."""
        shown = list(known)[-self.known_facts :] if self.known_facts else []
        windows = make_windows(session.turns, max_chars=self.window_chars, context_turns=self.context_turns)
        done = map_ordered(
            self.client, lambda window: self._counted(session, window, shown), windows, name="uac-extract"
        )
        out: list[ExtractedFact] = []
        total = ExtractionStats()
        for facts, stats in done:
            out.extend(facts)
            total.merge(stats)
        return out, total

    def merge_stats(self, stats: ExtractionStats) -> None:
        with self._lock:
            self._stats.merge(stats)

    def _counted(
        self, session: Session, window: Window, known: list[Fact]
    ) -> tuple[list[ExtractedFact], ExtractionStats]:
        saved = getattr(self._local, "stats", None)
        self._local.stats = stats = ExtractionStats()
        try:
            return self._window(session, window, known), stats
        finally:
            self._local.stats = saved

    # -- one window ----------------------------------------------------------------

    def _window(self, session: Session, window: Window, known: list[Fact]) -> list[ExtractedFact]:
        self.stats.windows += 1
        try:
            return self._extract(session, window, known)
        except ReplyCutOff as exc:
            if len(window.turns) > 1:
                self.stats.windows_split += 1
                first, second = split_window(window, self.context_turns)
                self.stats.windows -= 1  # the halves count instead
                return self._window(session, first, known) + self._window(session, second, known)
            return self._fallback(
                session, window, f"the reply for one turn was cut off at the token limit ({exc.message})"
            )
        except _Unusable as exc:
            return self._fallback(session, window, exc.problem)

    def _fallback(self, session: Session, window: Window, problem: str) -> list[ExtractedFact]:
        self.stats.windows_fallback += 1
        self.stats.note([f"{window.describe(session)}: {problem}"])
        names = set(session.speakers)
        facts = []
        for turn in window.turns:
            for fact in self._rules.turn_facts(session, turn, names):
                meta = dict(fact.meta, fallback=f"the model's reply was unusable: {problem}"[:300])
                facts.append(
                    ExtractedFact(fact.text, fact.evidence, fact.speaker, fact.event_date, fact.supersedes, meta)
                )
        self.stats.fallback_facts += len(facts)
        return facts

    def _call(self, messages: list[Message], purpose: str) -> ChatResponse:
        return self.client.chat(messages, json_schema=FACTS_SCHEMA, schema_name="facts", purpose=purpose)

    def _items(self, response: ChatResponse) -> list[Any]:
        """The reply's list of items (tolerant reader); raises InvalidReply / ReplyCutOff."""
        try:
            value = parse_structured(response.content, _OUTER_SCHEMA).value
        except InvalidReply as exc:
            response.reject()
            if response.cut_off:
                raise ReplyCutOff(
                    f"the extraction reply stopped at the token limit ({response.purpose})",
                    max_tokens=response.max_tokens,
                    purpose=response.purpose,
                ) from exc
            raise
        return list(value["facts"])

    def _request(self, session: Session, window: Window, known: list[Fact]) -> _WindowRequest:
        prompt = render_prompt(
            "extract_facts.j2",
            session_id=session.session_id,
            session_date=session.date.isoformat(),
            date_text=session.date_text,
            speakers=list(session.speakers),
            known=known,
            context=list(window.context),
            turns=list(window.turns),
        )
        return _WindowRequest(
            session,
            window,
            [system(render_prompt("system_json.j2", schema_name="facts")), user(prompt)],
            TurnIds(tuple(t.turn_id for t in window.turns), tuple(t.turn_id for t in window.context)),
            KnownFacts(known),
            [t.turn_id for t in window.turns],
            f"extract {window.describe(session)}",
        )

    def _extract(self, session: Session, window: Window, known: list[Fact]) -> list[ExtractedFact]:
        ask = self._request(session, window, known)
        response = self._call(ask.messages, ask.purpose)
        try:
            items = self._items(response)
        except ReplyCutOff:
            raise
        except InvalidReply as exc:
            return self._ask_again(ask, response, exc)

        self.stats.items += len(items)
        kept, bad = self._read(items, ask.turns, ask.known, session, final=False)
        if not bad:
            response.accept()
            self._count(kept)
            return [fact for fact, _ in kept]
        response.reject()  # never cache a reply that failed validation
        self.stats.note(bad)
        recovered = self._repair(ask, response, kept, bad)
        merged = kept + recovered
        if not merged:
            self.stats.items -= len(items)  # the rules stand in for all of them
            raise _Unusable(f"no item of the answer was usable ({bad[0]})")
        self.stats.repaired += len(recovered)
        self.stats.dropped += len(bad) - len(recovered)
        self._count(merged)
        position = {turn: i for i, turn in enumerate(ask.allowed)}
        merged.sort(key=lambda pair: min(position[e] for e in pair[0].evidence))  # stable: the turns' order
        return [fact for fact, _ in merged]

    def _ask_again(self, ask: _WindowRequest, response: ChatResponse, exc: InvalidReply) -> list[ExtractedFact]:
        """Nothing of the first reply was readable: ask once for the whole answer again."""
        session, window = ask.session, ask.window
        self.stats.note([f"{window.describe(session)}: {exc.message}"])
        repair = render_prompt(
            "extract_repair.j2", problems=exc.problems or [exc.message], allowed=ask.allowed, partial=False
        )
        second = self._call(ask.messages + [_echo(response), user(repair)], ask.purpose + " (repair)")
        self.stats.repair_calls += 1
        try:
            items = self._items(second)
        except InvalidReply as again:  # ReplyCutOff included: the caller splits
            if isinstance(again, ReplyCutOff):
                raise
            raise _Unusable(again.message) from again
        kept, bad = self._read(items, ask.turns, ask.known, session, final=True)
        if not kept and bad:
            second.reject()
            raise _Unusable("the answer held no usable fact" + (f" ({bad[0]})" if bad else "")) from exc
        second.accept()
        self.stats.items += len(items)
        self.stats.dropped += len(bad)
        self.stats.note(bad)
        self._count(kept)
        return [fact for fact, _ in kept]

    def _repair(
        self, ask: _WindowRequest, response: ChatResponse, kept: list[tuple[ExtractedFact, list[str]]], bad: list[str]
    ) -> list[tuple[ExtractedFact, list[str]]]:
        """Ask for the items that failed again; the new facts it recovers (at most one per bad item)."""
        repair = render_prompt("extract_repair.j2", problems=bad, allowed=ask.allowed, partial=True)
        self.stats.repair_calls += 1
        recovered: list[tuple[ExtractedFact, list[str]]] = []
        try:
            second = self._call(ask.messages + [_echo(response), user(repair)], ask.purpose + " (repair)")
            more = self._items(second)
        except InvalidReply as exc:  # a cut-off repair too: keep what the first reply gave
            self.stats.note([f"{ask.window.describe(ask.session)} repair: {exc.message}"])
            return recovered
        seen = {_key(f.text) for f, _ in kept}
        fixed, _still_bad = self._read(more, ask.turns, ask.known, ask.session, final=True)
        for fact, coerced in fixed:
            if _key(fact.text) not in seen:
                seen.add(_key(fact.text))
                recovered.append((fact, coerced))
        if fixed:
            second.accept()
        else:
            second.reject()
        return recovered[: len(bad)]

    def _read(
        self, items: list[Any], turns: TurnIds, known: KnownFacts, session: Session, *, final: bool
    ) -> tuple[list[tuple[ExtractedFact, list[str]]], list[str]]:
        kept: list[tuple[ExtractedFact, list[str]]] = []
        bad: list[str] = []
        seen: set[str] = set()
        for number, item in enumerate(items):
            reading = read_item(item, f"facts[{number}]", turns, known, session.date, final=final)
            if reading.fact is None:
                bad.append(reading.problem or f"facts[{number}] is invalid")
            elif _key(reading.fact.text) not in seen:
                seen.add(_key(reading.fact.text))
                kept.append((reading.fact, reading.coerced))
        return kept, bad

    def _count(self, kept: list[tuple[ExtractedFact, list[str]]]) -> None:
        self.stats.kept += len(kept)
        self.stats.coerced += sum(1 for _, coerced in kept if coerced)
