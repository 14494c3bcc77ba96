"""What higher apps add to a match's page and to its replay (games.views).

What is known of a match beyond its record (the analysis of its plays) is a
higher app's, which games must not import.  Such an app registers with
``extend`` in its ``AppConfig.ready``:

- ``block(request, match)``: HTML the provider rendered from its own template,
  shown on the match page below its links (``""`` for nothing), a query or two;
- ``turn_notes(request, match, game)``: short HTML notes for the replay of
  ``game``, by the id of the stored turn they are about (``Turn.pk``; a record's
  action index becomes a turn with ``games.exports.action_turn_ids``), a query
  or two for the game;
- ``stylesheet``: a static path both pages link in their head.

Everything a provider adds tells of the result (how the games went), so it is
asked only when the viewer may see the match's result (``games.visibility``,
the same rule that hides the score, the games and the replay); otherwise the
pages show nothing from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.http import HttpRequest
from django.utils.safestring import SafeString

from games import visibility
from games.models import Game, Match

Html = SafeString | str
BlockProvider = Callable[[HttpRequest, Match], Html]
TurnNotesProvider = Callable[[HttpRequest, Match, Game], Mapping[int, Html]]


@dataclass(frozen=True)
class Extension:
    block: BlockProvider | None = None
    turn_notes: TurnNotesProvider | None = None
    stylesheet: str | None = None


_EXTENSIONS: list[Extension] = []


def extend(
    *,
    block: BlockProvider | None = None,
    turn_notes: TurnNotesProvider | None = None,
    stylesheet: str | None = None,
) -> Extension:
    """Let a higher app add to the match page and the replay (see the module docstring)."""
    extension = Extension(block, turn_notes, stylesheet)
    if extension not in _EXTENSIONS:
        _EXTENSIONS.append(extension)
    return extension


def stylesheets() -> list[str]:
    return [e.stylesheet for e in _EXTENSIONS if e.stylesheet]


def blocks(request: HttpRequest, match: Match) -> list[Html]:
    """Every non-empty block for the match page, in the providers' order; none when
    the viewer may not see the match's result."""
    if not visibility.result_visible(request.user, match):
        return []
    return [
        block for e in _EXTENSIONS if e.block is not None and (block := e.block(request, match))
    ]


def turn_notes(request: HttpRequest, match: Match, game: Game) -> dict[int, list[Html]]:
    """The providers' notes on the turns of ``game`` by turn id, in the providers'
    order; none when the viewer may not see the match's result."""
    if not visibility.result_visible(request.user, match):
        return {}
    notes: dict[int, list[Html]] = {}
    for e in _EXTENSIONS:
        if e.turn_notes is None:
            continue
        for turn_id, note in e.turn_notes(request, match, game).items():
            if note:
                notes.setdefault(turn_id, []).append(note)
    return notes
