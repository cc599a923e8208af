"""The STATE channel: which domains to show, and their code as text.

* ``monolithic`` inlines every domain's ``schema.py`` and ``state.py``;
* ``modular`` (default) inlines only the domains relevant to the question,
  chosen deterministically by its words (against the manifest line, the class,
  field and collection names of each domain, words of one family meeting) and
  by its meaning (:mod:`.domain_meaning`); when nothing matches it shows every domain
  if they all fit the budget, else every domain's manifest line, description
  (the ``schema.py`` docstring) and classes;
* ``manifest`` shows only the one-line summaries.

Periods (``Period("2023-05")`` in ``state.py``) are shown as people say them
(``Period("May 2023")``, ``Period("the week before 9 June 2023")``).  The text
is cut to a character budget (paper default 6,000).  With ``as_of``
the records not yet known on that day are dropped (by when the facts they cite
were said; a record citing none, by its earliest date) and the affected
``state.py`` files are re-rendered from what remains.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as _dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ..dates import Period, parse_period
from ..fsutil import read_regular, split_lines
from .model import StateChannel

_MANIFEST_LINE = re.compile(r"^\s*[-*]\s*`?([A-Za-z0-9_]+)`?\s*[:\u2014-]\s*(.*)$")
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_COLLECTION = re.compile(r"^([a-z_][a-z0-9_]*)\s*:", re.M)
_STOP = frozenset(
    """a an the and or of to in on at for from by with about is are was were be been
    do does did have has had i me my mine you your we our they their he she his her it its
    what which who whom when where why how many much most least more less than that this
    these those there any all each per over under did ever during between after before
    tell show give list name please can could would should""".split()
)
TRUNCATION_MARK = "\n# ... [STATE truncated: {rest} more characters; query the full state with the python tool]\n"


def _fold_tense(word: str) -> str:
    """travelled / travelling -> travel, studied -> study, cooked -> cook (both sides of a
    comparison are folded alike, so an odd stem still meets itself)."""
    for ending in ("ing", "ed"):
        if not word.endswith(ending) or len(word) - len(ending) < 3:
            continue
        base = word[: -len(ending)]
        if base.endswith("e"):
            return word  # need, speed, bleed
        if ending == "ed" and base.endswith("i"):
            return base[:-1] + "y"
        if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeiouls":
            base = base[:-1]  # planned -> plan, shopping -> shop
        elif base.endswith("ll"):
            base = base[:-1]  # travelled -> travel
        return base
    return word


def words(text: str) -> set[str]:
    """Lower-case content words with a light plural and tense fold (trips -> trip, travelled
    -> travel)."""
    out = set()
    for raw in _IDENT.findall(text):
        for part in _CAMEL.findall(raw) or [raw]:
            word = part.lower()
            if word in _STOP or len(word) < 2:
                continue
            if len(word) > 4 and word.endswith("ies"):
                word = word[:-3] + "y"
            elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
                word = word[:-1]
            out.add(_fold_tense(word))
    return out


@dataclass(frozen=True)
class DomainView:
    name: str
    summary: str
    schema_text: str
    state_text: str

    @property
    def code(self) -> str:
        return (
            f"# domains/{self.name}/schema.py\n{self.schema_text.rstrip()}\n\n"
            f"# domains/{self.name}/state.py\n{say_periods(self.state_text).rstrip()}\n"
        )

    def vocabulary(self) -> set[str]:
        names = " ".join(_COLLECTION.findall(self.state_text))
        return words(" ".join([self.name, self.summary, self.schema_text, names]))


_PERIOD_LITERAL = re.compile(r'\bPeriod\("([0-9A-Za-z/-]{4,40})"\)')


def say_periods(text: str) -> str:
    """``Period("2023-06-02/2023-06-08")`` as people say it: ``Period("the week before
    9 June 2023")`` (the STATE text is read, not loaded; ``state.py`` keeps the stored form)."""
    if "Period(" not in text:
        return text

    def said(match: re.Match[str]) -> str:
        try:
            period = parse_period(match.group(1))
        except ValueError:
            return match.group(0)
        return match.group(0) if period is None else f'Period("{period.render()}")'

    return _PERIOD_LITERAL.sub(said, text)


def manifest_summaries(manifest_text: str) -> dict[str, str]:
    out = {}
    for line in split_lines(manifest_text):
        match = _MANIFEST_LINE.match(line)
        if match:
            out[match.group(1)] = match.group(2).strip()
    return out


def load_domain_views(root: Path) -> list[DomainView]:
    """Every compiled domain under ``root/domains`` (sorted by name)."""
    domains_dir = root / "domains"
    manifest = root / "MANIFEST.md"
    # only regular files inside the project: a link out of it is refused, never read

    def text(path: Path) -> str:
        return read_regular(root, path).decode("utf-8")

    summaries = manifest_summaries(text(manifest)) if manifest.exists() else {}
    views: list[DomainView] = []
    if not domains_dir.is_dir():
        return views
    for folder in sorted(p for p in domains_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        schema, state = folder / "schema.py", folder / "state.py"
        if not (schema.is_file() and state.is_file()):
            continue
        views.append(DomainView(folder.name, summaries.get(folder.name, ""), text(schema), text(state)))
    return views


def schema_description(schema_text: str) -> tuple[str, list[str]]:
    """A domain's description (the ``schema.py`` docstring, on one line) and its classes as
    ``Name(field, ...)`` -- what the reader needs to know the domain is there."""
    try:
        tree = ast.parse(schema_text)
    except (SyntaxError, ValueError):
        return "", []
    doc = " ".join((ast.get_docstring(tree) or "").split())
    classes = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            names = [n for n in names if n not in ("sources", "notes")]
            classes.append(f"{node.name}({', '.join(names)})" if names else node.name)
    return doc, classes


#: characters of one domain's description shown when no domain matched the question
DESCRIPTION_CHARS = 600


def _past_description(summary: str, doc: str) -> str:
    """A manifest line less the description it opens with (``"<doc>. <collections>"``), for
    a text that shows the whole description next: the rest after the longest opening that
    the description starts with."""
    said = " ".join(doc.split())
    ends = [at for at in range(len(summary)) if summary.startswith(". ", at)]
    for at in reversed(ends):
        if said and said.startswith(" ".join(summary[:at].split())):
            return summary[at + 2 :]
    return summary


def described_manifest(views: list[DomainView]) -> str:
    """Every domain with its manifest line, its description and its classes (no domain matched)."""
    lines = [
        "# MANIFEST (no domain matched the question by its words or meaning: each domain with its description; "
        "the python tool holds their records)"
    ]
    for view in views:
        doc, classes = schema_description(view.schema_text)
        lines.append(f"- {view.name}: {_past_description(view.summary, doc)}".rstrip())
        if doc:
            lines.append(
                "  " + (doc if len(doc) <= DESCRIPTION_CHARS else doc[: DESCRIPTION_CHARS - 3].rstrip() + "...")
            )
        if classes:
            lines.append("  classes: " + "; ".join(classes))
    return "\n".join(lines) + "\n"


def unrepresented_note(counts: dict[str, int]) -> str:
    """The STATE line saying how many facts of the shown domains no record holds ("" if none)."""
    parts = [f"{name} {n}" for name, n in counts.items() if n]
    if not parts:
        return ""
    return (
        "# Facts no typed record below holds (at most a timeline entry), by domain: "
        + ", ".join(parts)
        + '. Read them in [FACTS], on its lines marked "not in STATE".\n'
    )


_NAME = re.compile(r"(?<=[\w,;:] )[A-Z][\w'’&-]+(?: [A-Z][\w'’&-]+)*")


#: capitalised words that name a time, not a thing a record holds ("in March", "on Friday")
_CALENDAR = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday christmas easter""".split()
)


def named_things(question: str) -> list[str]:
    """The names a question gives (capitalised words past its first: "Pho Hoa", "Tom"; a
    month or a day of the week is a time, not a name)."""
    found = (m.group(0).lower() for m in _NAME.finditer(question))
    return [name for name in found if name not in _STOP and name not in _CALENDAR]


def select_domains(
    question: str, views: list[DomainView], *, root: Path | None = None, meaning: bool = True
) -> list[DomainView]:
    """The domains the question is about, best first (ties by name).

    A domain scores a point for each content word it shares with the question, words of
    one family meeting (bought, spent and ``Purchase``; ran and ``distance_km``) and words
    every domain holds left out; its own name in the question and a name the question
    gives that its records hold ("Pho Hoa" in a meal) weigh 2 each; and, with
    ``meaning``, the domains whose description is closest to the question's meaning score
    up to 2 more (:func:`uac.answer.domain_meaning.meaning_scores`; ``root``: the project
    that keeps their vectors)."""
    from .domain_meaning import distinctive, meaning_scores, with_families

    asked = with_families(words(question))
    names = named_things(question)
    vocabularies = distinctive({view.name: with_families(view.vocabulary()) for view in views})
    close = meaning_scores(question, views, root) if meaning else {}
    scored = []
    for view in views:
        overlap = len(asked & vocabularies[view.name])
        name_hit = 2 if words(view.name) & asked else 0
        if names:
            held = view.state_text.lower()
            name_hit += 2 * sum(1 for name in names if name in held)
        points = overlap + name_hit + close.get(view.name, 0.0)
        if points:
            scored.append((-points, view.name, view))
    return [view for _, _, view in sorted(scored, key=lambda t: (t[0], t[1]))]


# --- as-of filtering of loaded state ------------------------------------------


def _record_dates(obj: Any) -> list[_dt.date]:
    out = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, _dt.datetime):
            out.append(value.date())
        elif isinstance(value, _dt.date):
            out.append(value)
        elif isinstance(value, Period):
            out.append(value.start)
    return out


def _known_on(record: Any, as_of: _dt.date, said: "Callable[[str], _dt.date | None] | None") -> bool:
    """Was the record known on ``as_of``?  By when its facts were said (the earliest
    fact its ``sources`` cite); a record citing no known fact (imported records)
    by its earliest date."""
    if said is not None:
        sources = getattr(record, "sources", None)
        if isinstance(sources, (list, tuple)):
            days = [d for d in (said(s) for s in sources if isinstance(s, str)) if d is not None]
            if days:
                return min(days) <= as_of
    dates = _record_dates(record)
    return not dates or min(dates) <= as_of


def filter_state_as_of(
    state: dict[str, dict[str, Any]],
    as_of: _dt.date,
    said: "Callable[[str], _dt.date | None] | None" = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Keep the records known on ``as_of`` (:func:`_known_on`: by when their cited facts
    were said, given ``said``: fact id -> that day); returns (state, excluded per domain)."""
    filtered: dict[str, dict[str, Any]] = {}
    excluded: dict[str, int] = {}
    for domain, names in state.items():
        filtered[domain] = {}
        for name, value in names.items():
            if isinstance(value, (list, tuple)):
                kept = []
                for item in value:
                    if dataclasses.is_dataclass(item) and not isinstance(item, type):
                        if not _known_on(item, as_of, said):
                            excluded[domain] = excluded.get(domain, 0) + 1
                            continue
                    kept.append(item)
                value = type(value)(kept) if isinstance(value, tuple) else kept
            filtered[domain][name] = value
    return filtered, excluded


def render_state_module(names: dict[str, Any]) -> str:
    """``state.py``-style source for loaded values (the same printer as compiled state)."""
    from ..dialect.render import format_value

    lines: list[str] = []
    for name, value in names.items():
        lines.extend(format_value(list(value) if isinstance(value, tuple) else value, 0, f"{name} = "))
    return "\n".join(lines) + "\n"


# --- the channel -----------------------------------------------------------------


def truncate(text: str, budget: int) -> tuple[str, bool]:
    if len(text) <= budget:
        return text, False
    cut = text[:budget]
    newline = cut.rfind("\n")
    if newline > budget // 2:
        cut = cut[: newline + 1]
    return cut + TRUNCATION_MARK.format(rest=len(text) - len(cut)), True


def build_state_channel(
    root: Path,
    question: str,
    *,
    loading: str,
    budget: int,
    as_of_state: dict[str, dict[str, Any]] | None = None,
    excluded: dict[str, int] | None = None,
    unrepresented: dict[str, int] | None = None,
) -> StateChannel:
    """Assemble the STATE text for ``question`` under ``loading`` and ``budget``.

    ``unrepresented``: domain -> facts valid now that no record of it holds; the shown
    domains' counts open the text (:func:`unrepresented_note`), so the reader reads FACTS."""
    views = load_domain_views(root)
    excluded = excluded or {}
    if as_of_state is not None:
        views = [
            DomainView(v.name, v.summary, v.schema_text, render_state_module(as_of_state.get(v.name, {})))
            if excluded.get(v.name)
            else v
            for v in views
        ]
    manifest_text = "".join(f"- {v.name}: {v.summary}\n" for v in views)
    if loading == "manifest" or not views:
        chosen: list[DomainView] = []
    elif loading == "monolithic":
        chosen = views
    else:
        chosen = select_domains(question, views, root=root)
        if not chosen and sum(len(v.code) + 1 for v in views) <= budget:
            chosen = views  # nothing matched, but everything fits: show it all
    if chosen:
        text = "".join(view.code + "\n" for view in chosen)
    else:
        text = described_manifest(views) if views else ""
        if loading == "manifest" and views:
            text = "# MANIFEST\n" + manifest_text
    shown = chosen or views
    note = unrepresented_note({v.name: (unrepresented or {}).get(v.name, 0) for v in shown}) if text else ""
    text, truncated = truncate(note + text, budget)
    return StateChannel(
        loading=loading,
        domains=[v.name for v in chosen],
        text=text,
        chars=len(text),
        truncated=truncated,
        records_excluded_as_of=sum(excluded.values()),
    )


def iter_record_counts(state: dict[str, dict[str, Any]]) -> Iterable[tuple[str, str, int]]:
    for domain, names in state.items():
        for name, value in names.items():
            if isinstance(value, (list, tuple)):
                yield domain, name, len(value)
