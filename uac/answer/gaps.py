"""What STATE does not hold: the facts in force that no record represents.

The reader is told twice, cheaply: STATE opens with one line counting, per shown
domain, the facts in no record (only on a timeline, or left out with a reason:
:func:`uac.compile.coverage.fact_coverage`), and each FACTS line of such a fact
says ``not in STATE`` -- so an absence from the records is not read as an answer.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field

from ..compile.coverage import fact_coverage
from ..context import MemoryContext
from .model import EvidenceItem


@dataclass
class Gaps:
    #: domain -> facts in force it was given that no record (of any domain) holds
    per_domain: dict[str, int] = field(default_factory=dict)
    #: facts a compile placed in a domain that no record (timeline entries apart) cites
    unrepresented: set[str] = field(default_factory=set)

    def mark(self, items: list[EvidenceItem]) -> list[EvidenceItem]:
        """The fact items, those no record holds marked ``in_state=False`` (a fact no compile
        has placed yet is left unmarked: the view lags it, which is said elsewhere)."""
        return [dataclasses.replace(item, in_state=False) if item.id in self.unrepresented else item for item in items]


def view_gaps(ctx: MemoryContext, as_of: _dt.date | None) -> Gaps:
    """The gaps of the view for the facts in force now (or on ``as_of``)."""
    view = ctx.load_view()
    if not view:
        return Gaps()
    table = ctx.fact_table()
    if as_of is None:  # in force now: an open end (one comparison over the table's array)
        from ..facts.table import OPEN

        ends = table.end.tolist() if hasattr(table.end, "tolist") else table.end
        valid = [fact_id for fact_id, end in zip(table.ids, ends) if end == OPEN]
    else:
        valid = [fact_id for fact_id in table.ids if table.is_valid_at(fact_id, as_of)]
    coverage = fact_coverage(ctx.project, valid, view)
    # a fact one domain left out that a record of another holds is in STATE: it is not counted
    per_domain = {name: len(ids) for name, ids in coverage.unrepresented_in.items()}
    return Gaps(per_domain, coverage.unrepresented)


__all__ = ["Gaps", "view_gaps"]
