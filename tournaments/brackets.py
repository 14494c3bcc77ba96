"""Bracket trees drawn on the server: geometry for an SVG from ``queries.bracket_view``.

``bracket_view`` gives a flight's matches as columns (rounds of its sections:
``main``/``consolation``/``last_chance``, or ``W``/``L``/``GF`` in double
elimination), each match with its two sides, score, winner and the slots it
is fed from.  ``draw_flight`` lays every section out as its own tree:

* a section's first column is stacked top to bottom;
* a later match sits at the middle of the matches that feed it from the same
  section (its bracket parents), or below the previous match of its column
  when it is fed from elsewhere (drops from another section or flight);
* a connector runs from each feeder's right edge to the match's left edge.

The result is plain numbers and strings for ``templates/tournaments/_bracket.html``
(no JavaScript: the page works as it is printed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from tournaments.formats import flights

BOX_W = 200
ROW_H = 22
BOX_H = 2 * ROW_H
GAP_X = 34
GAP_Y = 14
PAD = 6
HEAD = 24
NAME_CHARS = 19  # a bold (winning) name of 19 characters still clears the score


@dataclass
class Side:
    name: str
    full_name: str
    seed: int | None
    score: int | None
    won: bool
    bye: bool
    unknown: bool


@dataclass
class Box:
    slot: str
    x: int
    y: int
    sides: tuple[Side, Side]
    url: str | None
    decided: bool
    forfeit: bool
    void: bool = False

    @property
    def center(self) -> int:
        return self.y + BOX_H // 2


@dataclass
class Section:
    key: str
    title: str
    width: int
    height: int
    columns: list[tuple[int, str]] = field(default_factory=list)  # (x of the title, title)
    boxes: list[Box] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    # Sizes the template needs (kept here so the geometry lives in one place).
    box_w: int = BOX_W
    box_h: int = BOX_H
    row_h: int = ROW_H


def _column_title(section: str, column: Sequence[Mapping[str, Any]], k: int, total: int) -> str:
    if section == flights.GRAND_FINAL:
        return _("Grand final") if k == 0 else _("Reset")
    if section == flights.WINNERS and k == total - 1 and len(column) == 1:
        return _("Winners' final")
    if section == flights.LOSERS and k == total - 1 and len(column) == 1:
        return _("Losers' final")
    if section == flights.MAIN and k == total - 1 and len(column) == 1:
        return _("Final")
    if section in (flights.MAIN, flights.WINNERS) and k == total - 2 and len(column) == 2:
        return _("Semi-finals")
    return _("Round %(number)d") % {"number": column[0].get("round") or k + 1}


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1].rstrip() + "…"


def _side(
    data: Mapping[str, Any] | None, score: int | None, winner: int | None, hide: bool
) -> Side:
    if data is None:
        return Side("", "", None, None, False, False, True)
    if data.get("bye"):
        return Side(_("bye"), _("bye"), None, None, False, True, False)
    entry = data.get("entry")
    name = str(data.get("name") or "")
    return Side(
        _short(name),
        name,
        data.get("seed"),
        None if hide else score,
        (not hide) and winner is not None and entry == winner,
        False,
        False,
    )


def draw_flight(
    columns: Sequence[Sequence[Mapping[str, Any]]],
    *,
    hidden: Iterable[str] = (),
    match_url: bool = True,
) -> list[Section]:
    """The flight's sections laid out as trees.

    ``hidden``: slots whose result must not show (a silent round, unpublished
    results), drawn neither decided nor forfeited.  The columns come with what
    those slots would tell already blanked by the one visibility rule
    (``tournaments.services.visibility.hide_bracket_results``).
    """
    hidden = set(hidden)
    by_section: dict[str, list[Sequence[Mapping[str, Any]]]] = {}
    for column in columns:
        if column:
            by_section.setdefault(str(column[0].get("section") or flights.MAIN), []).append(column)
    return [_layout(key, cols, hidden, match_url) for key, cols in by_section.items()]


def _layout(
    key: str,
    columns: list[Sequence[Mapping[str, Any]]],
    hidden: set[str],
    match_url: bool,
) -> Section:
    placed: dict[str, Box] = {}
    section = Section(key=key, title=flights.section_title(key), width=0, height=0)
    bottom = HEAD
    for k, column in enumerate(columns):
        x = PAD + k * (BOX_W + GAP_X)
        section.columns.append((x, _column_title(key, column, k, len(columns))))
        last_bottom = HEAD - GAP_Y
        for m in sorted(column, key=lambda m: m.get("index", 0)):
            feeders = [placed[s] for s in m.get("feeds_from") or [] if s in placed]
            if feeders:
                y = round(sum(f.center for f in feeders) / len(feeders)) - BOX_H // 2
            else:
                y = last_bottom + GAP_Y
            y = max(y, last_bottom + GAP_Y)
            box = _box(m, x, y, hidden, match_url)
            placed[m["slot"]] = box
            section.boxes.append(box)
            for f in feeders:
                mid = f.x + BOX_W + GAP_X // 2
                section.lines.append(f"M{f.x + BOX_W} {f.center}H{mid}V{box.center}H{x}")
            last_bottom = y + BOX_H
            bottom = max(bottom, last_bottom)
    section.width = PAD * 2 + len(columns) * BOX_W + max(len(columns) - 1, 0) * GAP_X
    section.height = bottom + PAD
    return section


def _box(
    m: Mapping[str, Any],
    x: int,
    y: int,
    hidden: set[str],
    match_url: bool,
) -> Box:
    void = m.get("status") == "void"
    hide = m["slot"] in hidden or void
    sides = [m.get("entry1"), m.get("entry2")]
    winner = m.get("winner")
    drawn = (
        _side(sides[0], m.get("score1"), winner, hide),
        _side(sides[1], m.get("score2"), winner, hide),
    )
    url = reverse("games:match", args=[m["match"]]) if match_url and m.get("match") else None
    return Box(
        slot=str(m["slot"]),
        x=x,
        y=y,
        sides=drawn,
        url=url,
        decided=(not hide) and m.get("status") == "decided",
        forfeit=(not hide) and bool(m.get("forfeit")),
        void=void,
    )
