"""A tournament's tables as files: the standings, a round's pairings and the entry
list, as CSV and XLSX.

The files are written by the house's writer (``ratings.exports.write_csv`` /
``write_xlsx``): the CSV opens in Excel directly (UTF-8 with a byte order mark,
";" between cells, the active language's headers and decimal mark), the XLSX
holds real numbers under a bold, frozen header; a name a spreadsheet would run
as a formula ("=…", "+…", "-…", "@…") stays text in both.

This module only lays rows out: what a viewer may see (published standings, a
result hidden from them) is decided by the views before the rows get here, with
``tournaments.services.visibility``, as on the pages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from ratings.exports import Column, sheet_title, write_csv, write_xlsx
from tournaments import adapters
from tournaments.formats import flights
from tournaments.models import Entry, EntryStatus, Pairing

FORMATS = ("csv", "xlsx")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@dataclass(frozen=True)
class Sheet:
    """One table to write: its file name (without the extension), the workbook
    sheet's title, its columns and its rows (whatever the columns read)."""

    stem: str
    title: str
    columns: Sequence[Column]
    rows: Sequence[Any]


def file_bytes(sheet: Sheet, fmt: str) -> bytes:
    """``sheet`` as a ``fmt`` file ("csv" or "xlsx")."""
    if fmt == "xlsx":
        return write_xlsx(sheet.columns, sheet.rows, title=sheet_title(sheet.title))
    return write_csv(sheet.columns, sheet.rows)


# --- A pairing's result, as the files and the printed results sheet show it


@dataclass(frozen=True)
class Result:
    """What a table's result says: the score (None without one), the winner's side
    (1/2, None: nobody or not decided), and how it was decided ("bye", "forfeit",
    "double forfeit" or "" for a match played, or not decided, or hidden)."""

    score1: int | None = None
    score2: int | None = None
    winner: int | None = None
    note: str = ""
    decided: bool = False


def pairing_result(pairing: Pairing, *, hidden: bool) -> Result:
    """The result of ``pairing`` (its match loaded), or an empty one when ``hidden``."""
    if hidden:
        return Result()
    outcome = adapters.pairing_outcome(pairing)
    if outcome is None:
        return Result()
    side, forfeit = outcome
    if pairing.entry2_id is None:
        return Result(winner=1, note=_("bye"), decided=True)
    match = pairing.match
    score1 = score2 = None
    if match is not None and match.score1 is not None and match.score2 is not None:
        score1, score2 = match.score1, match.score2
    note = ""
    if forfeit:
        note = _("forfeit") if side else _("double forfeit")
    return Result(score1, score2, side, note, True)


# --- The standings


def standings_sheet(
    stem: str,
    title: str,
    tables: Sequence[dict[str, Any]],
    snapshot_rows: Iterable[dict[str, Any]],
) -> Sheet:
    """The standings as the pages show them (``tables``: ``views.common.standings_tables``
    of the snapshot whose rows are ``snapshot_rows``): a line per player, the table's
    name first when there are several (flights, groups), the score or the wins and
    losses, then each tie-break in its order, as numbers (the rows' own values, not
    the pages' text)."""
    tiebreaks = {
        (row.get("flight") or flights.MAIN, row.get("group") or "", row.get("entry")): (
            row.get("tiebreaks") or {}
        )
        for row in snapshot_rows
    }
    several = len(tables) > 1
    bracket = any(table["bracket"] for table in tables)
    scored = any(not table["bracket"] for table in tables)
    codes: list[str] = []
    for table in tables:
        codes.extend(code for code in table["codes"] if code not in codes)
    rows = [
        {
            **row,
            "table": table["title"],
            "by_code": tiebreaks.get((table["flight"], table["group"], row["entry"]), {}),
        }
        for table in tables
        for row in table["rows"]
    ]
    columns: list[Column] = []
    if several:
        columns.append(Column(_("Flight"), lambda row: row["table"]))
    columns += [
        # A place shared by a tie is text ("1-3").
        Column(_("Place"), lambda row: row["place"] or None, "number"),
        Column(_("Player"), lambda row: row["name"]),
    ]
    if scored:
        columns.append(Column(_("Score"), lambda row: _number(row["score"]), "number"))
    if bracket:
        columns += [
            Column(_("Won"), lambda row: row["wins"], "int"),
            Column(_("Lost"), lambda row: row["losses"], "int"),
        ]
    columns += [_tiebreak_column(code) for code in codes]
    columns.append(Column(_("withdrawn"), lambda row: row["withdrawn"], "flag"))
    return Sheet(stem, title, columns, rows)


def _tiebreak_column(code: str) -> Column:
    return Column(code, lambda row: _number(row["by_code"].get(code)), "number")


def _number(value: Any) -> int | float | None:
    """A score or tie-break as the pages print it: whole numbers whole, others to two
    decimals (a Buchholz of 10.3333 is 10.33); anything else (a missing value) None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 2)
    return value


# --- A round's pairings


def pairings_sheet(
    stem: str, title: str, pairings: Iterable[Pairing], hidden: Callable[[Pairing], bool]
) -> Sheet:
    """A round's tables: both players, the score, the winner and how it was decided;
    blank where ``hidden(pairing)`` says the viewer may not see the result."""
    rows = []
    for pairing in pairings:
        result = pairing_result(pairing, hidden=hidden(pairing))
        player1 = str(pairing.entry1.player)
        player2 = str(pairing.entry2.player) if pairing.entry2 is not None else ""
        rows.append(
            {
                "table": pairing.table,
                "player1": player1,
                "player2": player2,
                "result": result,
                "winner": {1: player1, 2: player2}.get(result.winner or 0, ""),
            }
        )
    columns = [
        Column(_("Table"), lambda row: row["table"], "int"),
        Column(_("Player 1"), lambda row: row["player1"]),
        Column(_("Player 2"), lambda row: row["player2"]),
        Column(_("Points of player 1"), lambda row: row["result"].score1, "int"),
        Column(_("Points of player 2"), lambda row: row["result"].score2, "int"),
        Column(_("Winner"), lambda row: row["winner"]),
        Column(_("Result"), lambda row: row["result"].note),
    ]
    return Sheet(stem, title, columns, rows)


# --- The entry list


def entries_sheet(stem: str, title: str, entries: Iterable[Entry], clubs: dict[int, str]) -> Sheet:
    """Every entry (withdrawn ones too, said so) with its player's clubs (``clubs``, by
    player id), rating at entry, status and whether checked in."""
    columns = [
        Column(_("Seed"), lambda e: e.seed, "int"),
        Column(_("Name"), lambda e: e.player.name_native or e.player.name_latin),
        Column(_("Name (Latin)"), lambda e: e.player.name_latin),
        Column(_("Club"), lambda e: clubs.get(e.player_id, "")),
        Column(_("Rating"), lambda e: e.rating, "rating"),
        Column(_("Status"), lambda e: e.get_status_display()),
        Column(_("checked in"), lambda e: e.status == EntryStatus.CHECKED_IN, "flag"),
    ]
    return Sheet(stem, title, columns, list(entries))
