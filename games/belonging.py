"""Where a match belongs, for the match page's breadcrumb ("Tournament › Round 2 ›
Table 5").

A match knows its players, discipline and federation; the event it was played in
belongs to a higher app (a tournament's pairing), which games must not import.
Such an app registers a provider with ``extend`` in its ``AppConfig.ready``; the
match page asks every provider and shows the first trail it gets.  A provider
answers only what ``user`` may open (a link to a page that would be a 404 for
them is no help) and costs at most one query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.models import Match


@dataclass(frozen=True)
class Crumb:
    """One step of the trail: its label, and its address (empty: shown, not linked)."""

    label: str
    url: str = ""


# provider(user, match) -> the trail from the widest step to the narrowest, or () when
# the match is none of the provider's.
Provider = Callable[[Any, Match], tuple[Crumb, ...]]

_PROVIDERS: list[Provider] = []


def extend(provider: Provider) -> Provider:
    """Let a higher app say where its matches belong (see the module docstring)."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)
    return provider


def trail(user: Any, match: Match) -> tuple[Crumb, ...]:
    """The first non-empty trail a provider gives for ``match``, else ()."""
    for provider in _PROVIDERS:
        found = provider(user, match)
        if found:
            return found
    return ()
