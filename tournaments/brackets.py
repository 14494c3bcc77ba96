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

A section too large for one page is cut into parts (``split_section``): the
subtrees under runs of its first column, then the last rounds, each drawn with
the section's own column titles (``draw_section``).

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

# A section's columns (``queries.bracket_view``'s, or a part of them): matches top to bottom.
Columns = list[Sequence[Mapping[str, Any]]]

# A flight's bracket with more matches than this comes one section at a time, and a
# section with more, a part of its draw at a time: on the public page (a match draws
# in about 800 bytes) and in the API (about 350 bytes of JSON a match).
SPLIT_MATCHES = 128


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
    return [_layout(key, cols, hidden, match_url) for key, cols in by_section(columns).items()]


def by_section(columns: Sequence[Sequence[Mapping[str, Any]]]) -> dict[str, Columns]:
    """A flight's columns (``queries.bracket_view``) grouped by section, in order."""
    out: dict[str, Columns] = {}
    for column in columns:
        if column:
            out.setdefault(str(column[0].get("section") or flights.MAIN), []).append(column)
    return out


def split_section(columns: Columns, most: int) -> list[Columns]:
    """A section's columns cut into parts of about ``most`` matches at most: the subtrees
    under runs of its first column's matches (a power of two of them, each with the
    later matches fed only from inside that run), then one part with the rest (the
    last rounds, and matches fed from several runs or only from other sections)."""
    if not columns:
        return []
    run = 1
    while run * 4 <= most:
        run *= 2
    part_of: dict[str, int] = {}
    first = sorted(columns[0], key=lambda m: m.get("index", 0))
    for k, m in enumerate(first):
        part_of[m["slot"]] = k // run
    rest = -1
    for column in columns[1:]:
        for m in column:
            feeders = {part_of[s] for s in m.get("feeds_from") or [] if s in part_of}
            part_of[m["slot"]] = feeders.pop() if len(feeders) == 1 else rest
    parts = sorted(set(part_of.values()), key=lambda p: (p == rest, p))
    out: list[Columns] = []
    for part in parts:
        cut: Columns = [[m for m in column if part_of[m["slot"]] == part] for column in columns]
        out.append([column for column in cut if column])
    return out


def match_count(columns: Sequence[Sequence[Mapping[str, Any]]]) -> int:
    return sum(len(column) for column in columns)


def section_parts(whole: Columns, most: int) -> list[Columns]:
    """Section ``whole`` as it is shown: itself when it holds ``most`` matches or fewer,
    else cut by ``split_section`` (the last part holds the last rounds)."""
    return split_section(whole, most) if match_count(whole) > most else [whole]


def draw_section(
    key: str, columns: Columns, *, whole: Columns, hidden: Iterable[str] = ()
) -> Section:
    """``columns``, a part of section ``key`` (``split_section``), laid out as a tree with
    the column titles of the ``whole`` section ("Final" only over the final)."""
    titles = {
        column[0].get("round"): _column_title(key, column, k, len(whole))
        for k, column in enumerate(whole)
    }
    return _layout(key, columns, set(hidden), True, titles)


def _layout(
    key: str,
    columns: Columns,
    hidden: set[str],
    match_url: bool,
    titles: Mapping[Any, str] | None = None,
) -> Section:
    placed: dict[str, Box] = {}
    section = Section(key=key, title=flights.section_title(key), width=0, height=0)
    bottom = HEAD
    for k, column in enumerate(columns):
        x = PAD + k * (BOX_W + GAP_X)
        title = _column_title(key, column, k, len(columns))
        if titles is not None:
            title = titles.get(column[0].get("round"), title)
        section.columns.append((x, title))
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
