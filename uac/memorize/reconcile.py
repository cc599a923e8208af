"""Reconcile: what each new fact changes among every fact committed before it.

Sessions are extracted side by side, so a session's extraction may not have
seen the facts of the sessions just before it.  What a new fact changes is
therefore settled when its session is committed (in input order), against
every fact committed before it -- the earlier sessions of the same input
included -- and against the earlier facts of its own session:

1. **rules** (:func:`uac.extract.states.link_states`): a new employer or home,
   or leaving a job, supersedes the person's latest employer or home fact in
   force; the state keys go into the new fact's ``meta`` as with the rules
   extractor;
2. **one small model call per session** (``reconcile_facts.j2``), only for the
   facts that look like a change of state ("cancelled", "no longer",
   "actually", "instead", ...), or that may be the outcome of a plan, and that
   have candidates: the earlier facts about the same thing
   (:mod:`.topics`: subject, entities, words; never just the most recent).
   The model names pairs and a relation: ``supersedes``, ``corrects``,
   ``cancels`` (each ends the old fact at the new session's day) or
   ``fulfils`` (a plan that came true: linked, the plan stays in force);
3. **the extractor's proposals**: a ``supersedes`` the extraction reply gave
   that nothing above decided, kept when it names an earlier fact in force.

The call for a session is prepared as soon as the sessions before it are
extracted (its candidates come from the facts of the memory and of the
earlier sessions, whatever is committed yet), so it runs beside the other
sessions' extraction; the reply is applied at commit, where what is in force
is known.  Every fact is written whatever the reply says.  A change that
names no fact, a fact of a later session or a later fact of its own session,
a fact no longer in force, or an unknown relation is dropped and counted; a
cut-off or malformed reply keeps the pairs it holds whole.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ..errors import InvalidReply
from ..extract.base import ExtractedFact
from ..extract.states import link_states, statements
from ..facts.head import LogHead
from ..facts.log import Supersession
from ..facts.model import Fact
from ..fieldjson import fields_json
from ..llm import ChatResponse, LLMClient, Message, Usage, clean_id, parse_structured, strip_reasoning, system, user
from ..llm.structured import list_reply_outline, list_reply_schema
from ..sessions.model import Session
from ..templating import render_prompt
from .shown import ShownFacts
from .topics import TopicIndex

RELATIONS = ("supersedes", "corrects", "cancels", "fulfils")
#: relations that end the old fact (its ``invalid_at`` is the new session's day)
ENDING = frozenset({"supersedes", "corrects", "cancels"})
#: the facts in force before an ingest that reconcile looks among (the latest ones; the
#: employer and home facts in force are all known to the rules whatever their age)
INDEXED_FACTS = 20_000
#: new facts asked about in one call (a session with more makes more calls)
MAX_FACTS_PER_CALL = 12
#: words a model writes for a relation, read as one of :data:`RELATIONS`
_SYNONYMS = {
    "supersede": "supersedes",
    "superseded": "supersedes",
    "replaces": "supersedes",
    "replace": "supersedes",
    "updates": "supersedes",
    "changes": "supersedes",
    "correct": "corrects",
    "correction": "corrects",
    "corrected": "corrects",
    "cancel": "cancels",
    "cancelled": "cancels",
    "canceled": "cancels",
    "cancellation": "cancels",
    "fulfil": "fulfils",
    "fulfill": "fulfils",
    "fulfills": "fulfils",
    "fulfilled": "fulfils",
    "done": "fulfils",
    "completed": "fulfils",
    "happened": "fulfils",
}
_NOTHING = {"", "none", "null", "no", "nothing", "unchanged", "unrelated", "n/a"}

_CHANGE = re.compile(
    r"\b(?:no\s+longer|not\s+any\s*more|any\s*more|cancel(?:l?ed|s|ling)?|called\s+off|calls?\s+off|calling\s+off|"
    r"postpon\w*|reschedul\w*|fell\s+through|instead|changed|switched|actually|correct(?:ion|ed)?|mistaken|"
    r"mistake|wrong|turns?\s+out|turned\s+out|not\s+\w+\s+but|broke\s+up|split\s+up|divorc\w*|got\s+engaged|"
    r"got\s+married|sold|retired|resigned|gave\s+up|stopped|ended\s+up|did(?:n't|\s+not)\s+(?:go|happen)|"
    r"won't|will\s+not|decided|after\s+all|finally)\b",
    re.I,
)
_PLAN = re.compile(
    r"\b(?:plans?|planned|planning|going\s+to|will|wants?\s+to|thinking\s+(?:of|about)|intends?|hopes?\s+to|"
    r"hoping\s+to|next\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn)|scheduled|booked|upcoming)\b",
    re.I,
)

RECONCILE_SCHEMA = list_reply_schema(
    "changes",
    {"new": {"type": "string"}, "old": {"type": "string"}, "relation": {"type": "string", "enum": list(RELATIONS)}},
)
#: the reply's outer shape; pairs are read one by one
_OUTER_SCHEMA = list_reply_outline("changes")
_OBJECT = re.compile(r"\{[^{}]*\}")


def looks_like_change(fact: Fact) -> bool:
    """Does the text say something changed (or was wrong, or will not happen)?"""
    return _CHANGE.search(fact.text) is not None


def is_plan(fact: Fact) -> bool:
    return _PLAN.search(fact.text) is not None


def _ruled(fact: Fact) -> bool:
    """A new employer or home, or leaving a job: the rules settle it (see the module doc)."""
    if not fact.speaker:
        return False
    return any(s.event in ("start", "end") for s in statements(fact.text, fact.speaker))


@dataclass
class LinkCounts:
    """The links reconcile wrote, by where they came from."""

    #: the rules: a new employer or home ends the one in force
    rules: int = 0
    #: the model's answers
    model: int = 0
    #: the extractor's own ``supersedes`` proposals
    proposed: int = 0


@dataclass
class ReconcileStats:
    """What reconcile did (the ``reconcile`` block of an ingest report)."""

    #: new facts looked at, and those asked about in a model call
    facts: int = 0
    asked: int = 0
    calls: int = 0
    links: LinkCounts = field(default_factory=LinkCounts)
    #: links by relation
    relations: dict[str, int] = field(default_factory=dict)
    #: pairs of replies (and extractor proposals) dropped, by reason
    dropped: dict[str, int] = field(default_factory=dict)
    #: replies cut off at the token limit, and replies with nothing readable
    cut_off: int = 0
    unreadable: int = 0
    usage: Usage = field(default_factory=Usage)
    problems: list[str] = field(default_factory=list)

    def drop(self, reason: str, detail: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        self.note(detail)

    def note(self, problem: str) -> None:
        if len(self.problems) < 10:
            self.problems.append(problem[:300])

    def to_json(self) -> dict[str, Any]:
        out = fields_json(
            self,
            links=fields_json(self.links),
            relations=dict(sorted(self.relations.items())),
            dropped=dict(sorted(self.dropped.items())),
            usage=self.usage.report(),
        )
        return {**out, "dropped_total": sum(self.dropped.values())}


@dataclass(frozen=True)
class Question:
    """One new fact and the earlier facts it may change, for the model."""

    fact: Fact
    candidates: tuple[Fact, ...]


@dataclass
class Answer:
    """What the model said about one session's questions (read on a worker thread)."""

    changes: list[tuple[str, str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    calls: int = 0
    cut_off: int = 0
    unreadable: int = 0
    usage: Usage = field(default_factory=Usage)


@dataclass
class Prepared:
    """One session ready to be reconciled at its commit."""

    session: Session
    facts: list[Fact]
    extracted: list[ExtractedFact]
    questions: list[Question]
    #: the model's answer, on its way (``None``: nothing to ask)
    answer: "Future[Answer] | None" = None


def read_changes(content: str | None) -> tuple[list[Any], bool, int]:
    """The pairs of a reply (tolerant reader), whether it was read whole, and how many
    pairs it began that could not be read.  A reply that does not parse (cut off, or
    broken JSON) keeps the complete ``{...}`` objects it holds."""
    try:
        value = parse_structured(content, _OUTER_SCHEMA).value
        return list(value["changes"]), True, 0
    except InvalidReply:
        pass
    text = strip_reasoning(content or "")
    found = []
    for match in _OBJECT.finditer(text):
        try:
            item = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(item, dict) and ("old" in item or "new" in item):
            found.append(item)
    begun = len(re.findall(r'"new"\s*:', text))
    return found, False, max(0, begun - len(found))


def _relation(value: Any) -> str | None:
    text = str(value or "").strip().lower().strip(".\"'")
    if text in RELATIONS:
        return text
    return _SYNONYMS.get(text)


class Reconciler:
    """Reconciles the sessions of one ingest, in input order."""

    def __init__(self, client: LLMClient | None, earlier: Callable[[], Iterable[Fact]], later: Sequence[str]) -> None:
        self.client = client
        self._earlier = earlier
        self._index: TopicIndex | None = None
        self._builder: threading.Thread | None = None
        self._failure: BaseException | None = None
        #: ids ended during this ingest (the facts in force before it are those indexed)
        self._ended: set[str] = set()
        #: the sessions of this input, for telling a later session's fact from none
        self._order = {sid: number for number, sid in enumerate(later)}
        #: session id -> the index's length once its facts were added (what was before it)
        self._ends: dict[str, int] = {}
        self._start: int | None = None
        self.stats = ReconcileStats()

    def start(self) -> None:
        """Build the index of the facts in force before the ingest on a thread of its own,
        while the first sessions are extracted (a second or so at 10,000 facts)."""
        if self._index is None and self._builder is None:
            self._builder = threading.Thread(target=self._build, name="uac-reconcile-index", daemon=True)
            self._builder.start()

    def _build(self) -> None:
        try:
            index = TopicIndex(f for f in self._earlier() if f.invalid_at is None)
            self._start = len(index)  # the facts in force before the ingest
            self._index = index
        except BaseException as exc:  # noqa: BLE001 - raised where the index is needed
            self._failure = exc

    @property
    def index(self) -> TopicIndex:
        if self._builder is not None:
            self._builder.join()
            self._builder = None
            if self._failure is not None:
                raise self._failure
        if self._index is None:  # the facts in force before the ingest, once
            self._build()
            if self._failure is not None:
                raise self._failure
        assert self._index is not None
        return self._index

    def shown_after(self, committed: str | None) -> ShownFacts:
        """What an extraction may be shown once session ``committed`` is committed (``None``:
        before the first): the facts in force up to it (:mod:`.shown`).  Called on the
        caller's thread, right after that commit."""
        index = self.index
        before = self._ends[committed] if committed is not None else self._start
        return ShownFacts(index, before or 0, frozenset(self._ended))

    # -- before the commit ---------------------------------------------------------------

    def prepare(
        self, session: Session, facts: list[Fact], extracted: list[ExtractedFact], submit: Callable[..., Future]
    ) -> Prepared:
        """The session's questions, asked at once (``submit`` runs the call, maybe on a worker)."""
        questions = []
        index = self.index
        for fact in facts:
            if self.client is not None and not _ruled(fact):
                candidates = index.candidates(fact)
                if candidates and (
                    looks_like_change(fact) or (not is_plan(fact) and any(is_plan(c) for c in candidates))
                ):
                    questions.append(Question(fact, tuple(candidates)))
            index.add(fact)
        self._ends[session.session_id] = len(index)
        prepared = Prepared(session, facts, extracted, questions)
        if questions:
            prepared.answer = submit(self._ask, session, questions)
        return prepared

    def _ask(self, session: Session, questions: list[Question]) -> Answer:
        assert self.client is not None
        answer = Answer()
        with self.client.metered() as usage:
            for start in range(0, len(questions), MAX_FACTS_PER_CALL):
                chunk = questions[start : start + MAX_FACTS_PER_CALL]
                prompt = render_prompt(
                    "reconcile_facts.j2",
                    session_id=session.session_id,
                    session_date=session.date.isoformat(),
                    questions=chunk,
                )
                messages = [system(render_prompt("system_json.j2", schema_name="changes")), user(prompt)]
                purpose = f"extract reconcile session {session.session_id}"
                response = self._call(messages, purpose)
                answer.calls += 1
                items, whole, lost = read_changes(response.content)
                if not whole and not items and not response.cut_off:
                    # nothing readable: ask once again, showing what could not be read
                    response.reject()
                    problem = "no JSON object with a list of changes was found in it"
                    echo = Message("assistant", (response.content or "")[:4000])
                    repair = user(render_prompt("reconcile_repair.j2", problem=problem))
                    response = self._call(messages + [echo, repair], purpose + " (repair)")
                    answer.calls += 1
                    items, whole, lost = read_changes(response.content)
                if whole:
                    response.accept()
                else:
                    response.reject()  # never cache a reply that did not parse
                    if response.cut_off:
                        answer.cut_off += 1
                        answer.problems.append(
                            (
                                "cut_off_note",
                                f"session {session.session_id}: the reply stopped at the token limit; {len(items)} whole pair(s) kept",
                            )
                        )
                    elif not items:
                        answer.unreadable += 1
                        answer.problems.append(
                            ("unreadable", f"session {session.session_id}: the reply held no readable pair")
                        )
                    for _ in range(lost):
                        answer.problems.append(
                            ("cut_off", f"session {session.session_id}: a pair the reply began was not finished")
                        )
                for number, item in enumerate(items):
                    if not isinstance(item, dict):
                        answer.problems.append(("malformed", f"changes[{number}] is not an object"))
                        continue
                    raw = str(item.get("relation") or "").strip().lower()
                    if raw in _NOTHING:
                        continue
                    relation = _relation(raw)
                    new, old = clean_id(item.get("new") or ""), clean_id(item.get("old") or "")
                    if relation is None:
                        answer.problems.append(
                            (
                                "unknown_relation",
                                f"changes[{number}]: relation {raw[:40]!r} is not one of {', '.join(RELATIONS)}",
                            )
                        )
                    elif not new or not old:
                        answer.problems.append(("malformed", f"changes[{number}] lacks the new or the old fact's id"))
                    else:
                        answer.changes.append((new, old, relation))
        answer.usage = usage
        return answer

    def _call(self, messages: list[Message], purpose: str) -> ChatResponse:
        assert self.client is not None
        return self.client.chat(messages, json_schema=RECONCILE_SCHEMA, schema_name="changes", purpose=purpose)

    # -- at the commit -------------------------------------------------------------------

    def resolve(self, prepared: Prepared, head: LogHead) -> tuple[list[Fact], list[Supersession]]:
        """The session's facts (state keys added) and its links, against the log as
        committed now (``head``).  Called in input order, one session at a time."""
        facts = list(prepared.facts)
        self.stats.facts += len(facts)
        self.stats.asked += len(prepared.questions)
        links = _SessionLinks(self, prepared.session.session_id, facts, head)
        links.by_rules(prepared, facts)  # 1. the rules: employer and home, against the states in force now
        if prepared.answer is not None:  # 2. the model's pairs, checked against what is committed and in force
            links.by_model(prepared.answer.result())
        links.by_proposals(prepared, facts)  # 3. the extractor's own proposals that nothing above settled
        out = self._supersessions(prepared.session, facts, links)
        self._ended |= links.ended
        return facts, out

    def _supersessions(self, session: Session, facts: list[Fact], links: "_SessionLinks") -> list[Supersession]:
        """The links as the log's supersessions, in the order of the new facts (a correction
        moves the new fact's start back to where the misstated one began)."""
        own, stats = links.own, self.stats
        ordered = sorted(links.links.items(), key=lambda pair: (own[pair[0][1]], self._where(pair[0][0])))
        out = []
        for (old, new), relation in ordered:
            end = session.date if relation in ENDING else None
            if relation == "corrects":
                # a misstated value was never in force: the old fact ends where it began, and the
                # statement that puts it right holds from then on (not only from today)
                start = self._begin_of(facts[own[old]] if old in own else self._known_fact(old))
                if start is not None:
                    end = start
                    fixed = facts[own[new]]
                    begun = fixed.valid_from or fixed.session_date
                    if begun is None or start < begun:
                        facts[own[new]] = fixed.replace(valid_from=start)
            out.append(Supersession(old, new, end, session.session_id, relation))
            stats.relations[relation] = stats.relations.get(relation, 0) + 1
        return out

    def _known_fact(self, fact_id: str) -> Fact | None:
        position = self.index.position.get(fact_id)
        return self.index.facts[position] if position is not None else None

    @staticmethod
    def _begin_of(fact: Fact | None) -> "_dt.date | None":
        return None if fact is None else (fact.valid_from or fact.session_date)

    def _where(self, fact_id: str) -> int:
        return self.index.position.get(fact_id, -1)

    def _problem(
        self, session_id: str, new: str, old: str, own: dict[str, int], head: LogHead, in_force: Callable[[str], bool]
    ) -> tuple[str, str] | None:
        if new not in own:
            return "unknown_fact", f"{new} is not a fact of this session"
        if old == new:
            return "later_fact", "a fact cannot change itself"
        if old in own:
            if own[old] > own[new]:
                return "later_fact", f"{old} comes after {new}"
        elif old not in head.fact_ids:
            session = old.rsplit("-f", 1)[0]
            if self._order.get(session, -1) > self._order.get(session_id, -1):
                return "later_fact", f"{old} is a fact of a later session"
            return "unknown_fact", f"no fact {old} was committed"
        if not in_force(old):
            return "not_in_force", f"{old} is no longer in force"
        return None


__all__ = [
    "ENDING",
    "INDEXED_FACTS",
    "RELATIONS",
    "Prepared",
    "ReconcileStats",
    "Reconciler",
    "is_plan",
    "looks_like_change",
    "read_changes",
]


class _SessionLinks:
    """The links one session's facts make to older facts (or earlier ones of the session),
    gathered at its commit: ``(old, new) -> relation``."""

    def __init__(self, reconciler: Reconciler, session_id: str, facts: list[Fact], head: LogHead) -> None:
        self.reconciler = reconciler
        self.session_id = session_id
        self.head = head
        self.own = {fact.id: number for number, fact in enumerate(facts)}
        self.links: dict[tuple[str, str], str] = {}
        self.ended: set[str] = set()

    def in_force(self, fact_id: str) -> bool:
        # in force before the ingest: indexed, or an employer or home fact the head keeps
        known = fact_id in self.reconciler.index or fact_id in self.head.states
        committed = fact_id in self.own or (fact_id in self.head.fact_ids and known)
        return committed and fact_id not in self.reconciler._ended and fact_id not in self.ended

    def link(self, old: str, new: str, relation: str) -> None:
        self.links[(old, new)] = relation
        if relation in ENDING:
            self.ended.add(old)

    def by_rules(self, prepared: Prepared, facts: list[Fact]) -> None:
        cleared = [ExtractedFact(e.text, e.evidence, e.speaker, e.event_date, None, e.meta) for e in prepared.extracted]
        ruled = link_states(self.session_id, cleared, self.head.state_fact_list())
        for number, item in enumerate(ruled):
            if item.meta != facts[number].meta:
                facts[number] = facts[number].replace(meta=dict(item.meta))
            for old in item.superseded_ids:
                if self.in_force(old):
                    self.link(old, facts[number].id, "supersedes")
                    self.reconciler.stats.links.rules += 1

    def by_model(self, answer: Answer) -> None:
        reconciler, stats, sid = self.reconciler, self.reconciler.stats, self.session_id
        stats.calls += answer.calls
        stats.cut_off += answer.cut_off
        stats.unreadable += answer.unreadable
        stats.usage.add(answer.usage)
        for reason, detail in answer.problems:
            if reason in ("cut_off_note", "unreadable"):
                stats.note(detail)
            else:
                stats.drop(reason, detail)
        for new, old, relation in sorted(
            answer.changes, key=lambda c: (self.own.get(c[0], -1), reconciler._where(c[1]))
        ):
            problem = reconciler._problem(sid, new, old, self.own, self.head, self.in_force)
            if problem is not None:
                stats.drop(problem[0], f"session {sid}: {new} {relation} {old}: {problem[1]}")
            elif (old, new) not in self.links:
                self.link(old, new, relation)
                stats.links.model += 1

    def by_proposals(self, prepared: Prepared, facts: list[Fact]) -> None:
        stats, sid, own = self.reconciler.stats, self.session_id, self.own
        for number, item in enumerate(prepared.extracted):
            new = facts[number].id
            for old in item.superseded_ids:  # one fact may end several ("I left Acme": job, salary, search)
                if (old, new) in self.links:
                    continue
                if old in own and own[old] >= number:
                    stats.drop("later_fact", f"session {sid}: {new} proposes to supersede {old}, a later fact")
                elif not self.in_force(old):
                    stats.drop(
                        "not_in_force", f"session {sid}: {new} proposes to supersede {old}, which is no longer in force"
                    )
                else:
                    self.link(old, new, "supersedes")
                    stats.links.proposed += 1
