"""The order the domains of a compile run in: a thing's main domain before the others.

A fact routed to several domains has a main one (the thing itself: the meal, in
``food``) and others that record their side of it (the bill, in ``finance``),
and those are asked to refer to the main domain's record rather than copy it.
They can only refer to a record that exists, so a domain compiles after the
domains that are main for the facts it shares with them: ``food`` before
``finance``, whatever their names.

Facts may pull both ways (a bill routed ``finance`` first, a meal ``food``
first): the heavier direction wins -- the order drops the fewest shared facts'
worth of precedence, by the greedy ordering of Eades, Lin and Smyth (1993) for
a small feedback arc set -- and among domains free to go, name order decides,
so a compile without shared facts runs in name order, as it always did.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Sequence

#: (main domain, other domain) -> how many facts go from the one to the other
Pulls = Counter[tuple[str, str]]


def pulls(routes: Iterable[Sequence[str]]) -> Pulls:
    """How many facts each main domain shares with each other domain.  ``routes``: each
    fact's domains, the main one first (each fact once)."""
    counts: Pulls = Counter()
    for domains in routes:
        for other in domains[1:]:
            if other != domains[0]:
                counts[(domains[0], other)] += 1
    return counts


def main_first(names: Sequence[str], counts: Mapping[tuple[str, str], int]) -> tuple[list[str], dict[str, set[str]]]:
    """The domains in the order they compile, and for each the domains it waits for
    (those main for some of its facts that come before it in the order)."""
    present = set(names)
    weights = {pair: n for pair, n in counts.items() if pair[0] in present and pair[1] in present and n > 0}
    rank = {name: number for number, name in enumerate(_greedy(sorted(present), weights))}
    kept = {pair for pair in weights if rank[pair[0]] < rank[pair[1]]}
    order = _topological(sorted(present), kept)
    return order, {name: {main for main, other in kept if other == name} for name in order}


def _greedy(names: list[str], weights: Mapping[tuple[str, str], int]) -> list[str]:
    """An order that keeps most of the weight pointing forward (sinks last, sources
    first, else the domain whose outgoing weight most exceeds its incoming one)."""
    left = list(names)
    head: list[str] = []
    tail: list[str] = []

    def weight(name: str, outgoing: bool) -> int:
        side = 0 if outgoing else 1
        return sum(n for pair, n in weights.items() if pair[side] == name and pair[1 - side] in left)

    while left:
        sinks = [n for n in left if weight(n, outgoing=True) == 0 and weight(n, outgoing=False) > 0]
        if sinks:
            tail.insert(0, sinks[0])
            left.remove(sinks[0])
            continue
        sources = [n for n in left if weight(n, outgoing=False) == 0]
        pick = sources[0] if sources else max(left, key=lambda n: weight(n, True) - weight(n, False))
        head.append(pick)
        left.remove(pick)
    return head + tail


def _topological(names: list[str], edges: set[tuple[str, str]]) -> list[str]:
    """``names`` with every edge's first before its second; ties in name order."""
    waiting = {name: {a for a, b in edges if b == name} for name in names}
    order: list[str] = []
    while waiting:
        ready = min(name for name, before in waiting.items() if not before)
        order.append(ready)
        del waiting[ready]
        for before in waiting.values():
            before.discard(ready)
    return order


__all__ = ["main_first", "pulls"]
