"""Match records in the ``.mat`` text format (Jellyfish, GNU Backgammon, XG,
Backgammon Galaxy, Backgammon Studio, DailyGammon): import, check, export.

The format is described in ``shared/formats/MAT.md``.  Import reads the text
line by line and replays every game on the engine (``engine.rules.game``): every
checker play must be legal and every cube action allowed, or ``MatError`` is
raised with its 1-based ``line``; so is a ``Wins ... and the match`` that
names another match winner than the games give.  What the file only repeats
(score lines, ``Wins n``, the winner's column) is checked too, but where it
disagrees without changing who won the match it is a ``MatWarning`` (code,
line, data) kept with the match, and the engine's values are the ones kept;
tolerated oddities (``Illegal play (...)`` junk, names that change, an empty
name) are warnings as well.
The match is read into the format-neutral record (``engine.records.record``)
and replayed by ``engine.records.match_builder.MatchBuilder``, which checks
GNU Backgammon ``.sgf`` records (``engine.records.sgf``) the same way.

Player 1 (the left column, or ``PW`` in SGF) is engine side 0 (white),
player 2 side 1 (black); plays are in the mover's own numbering.

Decisions where the format is loose (documented, tested in
tests/engine/test_matfile.py):

- A turn line is split where whitespace is followed by dice (``62:``) or a
  keyword; the first action is the left player's when it starts before
  column 20, otherwise the left column is blank.  Turn numbers must run
  1, 2, 3... within a game, so a dropped turn line is reported at the line
  after it.
- A checker play is matched as MAT.md's last paragraph says (``written_play``):
  the legal play with the same net movement of the mover's checkers; every
  written journey must be a move of the dice (Galaxy's each-die-separately
  tokens and chains both are) landing on open points; blots it lands on and
  ``*`` marks must be hit, and otherwise the fewest hits.  The legal plays
  are generated once per turn; refusals are explained by
  ``engine.movegen.find_play`` (the rule broken, as its error code).
- A roll with no move (or ``????``) right before a resignation is a roll
  before resigning; elsewhere a roll with no move must have no legal play.
- Every game ends with a ``Wins n`` line.  After a bear-off or a dropped
  double the game's value is the engine's: another ``n`` is a ``wrong_points``
  warning and a ``Wins`` in the loser's column a ``wrong_winner`` warning,
  unless it says ``and the match`` (then refused: it names the match winner).
  Otherwise the game ended by resignation of the other player (whether or not
  a ``Losses``, ``Resigns``, ``Forfeits`` or ``Lost on time`` is written) and
  ``n / cube`` gives its level (1 single, 2 mars, 3 koks); an ``n`` no level
  gives is a ``wrong_points`` warning and the level is then the lowest that
  reaches the points needed when the line says ``and the match`` (the
  highest where none does), otherwise the highest not above ``n``.
- After ``Losses`` (or another resignation word) the resigner is certain:
  the ``Wins`` that follows goes to the opponent whatever its column (Galaxy
  writes it in either, or far to the right: ``wins_column`` warning), and a
  ``Losses n`` other than the ``Wins n`` is a ``resign_points`` warning.  When
  that ``Wins`` says ``and the match`` but the resignation's points do not
  reach the match length, the player resigned the whole match (Galaxy's
  player who leaves): the match goes to the opponent (``MatchRecord.resigned``,
  ``match_resigned`` warning), the game keeps the resignation's points.
- Galaxy caps ``Wins n`` in a match's last game (at the points the winner
  still needed, or at the match length): a bear-off or drop written with an
  ``n`` below the game's value but at least what the winner needed is read as
  capped (``MatGame.capped``), without a warning; for a resignation an ``n``
  equal to what was needed means the lowest level that reaches it, as GNU
  Backgammon reads it.
- A score line that disagrees with the games is a ``score_mismatch``
  warning; a player's name may be empty (Galaxy's deleted account,
  ``alice : 0        : 0``): an ``empty_name`` warning.
- Galaxy's "16 point match" money sessions are read as 16-point matches, as
  GNU Backgammon reads them (a mars would score 2 x cube; none of the three
  in the corpus ends in one, so the "mars scores 1" rule cannot be seen).
- The Crawford game is the first game in which a player needs exactly one
  point, unless the ``Crawford`` header is ``Off``; doubling in it is an
  error.  ``Jacoby`` and ``Beaver`` headers apply to money sessions only.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Final

from engine.errors import MAX_RECORD_NUMBER, EngineError, bounded_int
from engine.records.match_builder import MatchBuilder, error_at
from engine.records.notation import format_play, parse_moves
from engine.records.record import (
    BEAVER,
    DOUBLE,
    DROP,
    PLAY,
    RESIGN,
    ROLL,
    TAKE,
    WIN,
    MatchRecord,
    MatchSettings,
    RecordAction,
    RecordedGame,
    RecordError,
    RecordWarning,
)
from engine.rules.plays import Move
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant

__all__ = [
    "BEAVER",
    "DOUBLE",
    "DROP",
    "PLAY",
    "RESIGN",
    "ROLL",
    "TAKE",
    "WIN",
    "MatAction",
    "MatError",
    "MatGame",
    "MatMatch",
    "MatWarning",
    "MatchBuilder",
    "MatchSettings",
    "export_mat",
    "parse_mat",
    "replay_mat",
    "variant_of",
]

# The record model under the names .mat callers know it by (games.exports,
# the corpus benchmark): the same classes as engine.records.record's.
MatError = RecordError
MatWarning = RecordWarning
MatAction = RecordAction
MatGame = RecordedGame
MatMatch = MatchRecord

_RIGHT_COLUMN: Final = 20  # an action starting at or after this column is the right player's
_LEFT: Final = 5  # GNU Backgammon's columns
_RIGHT: Final = 33


def variant_of(name: str) -> Variant | None:
    """The engine variant for a ``Variation`` header or SGF rule name."""
    key = name.strip().casefold()
    if key in ("backgammon", "standard", ""):
        return SHORT
    if key == "nackgammon":
        return NACKGAMMON
    if key in ("hypergammon", "hypergammon3"):
        return HYPERGAMMON
    return None


# --- Reading .mat text -------------------------------------------------------------

_LENGTH = re.compile(
    r"\s*(?:(?P<n>\d+)\s+points?\s+match|match\s+of\s+(?P<m>\d+)\s+points?)\s*", re.IGNORECASE
)
_GAME = re.compile(r"\s*game\s+(?P<n>\d+)\s*", re.IGNORECASE)
# A score line's pieces, matched around its colons (see ``_score_line``).
_SCORE_TAIL = re.compile(r"\s*(\d+)")
_SCORE_MIDDLE = re.compile(r"\s*(\d+)\s+(?=\S)")
_TURN = re.compile(r"\s*(?P<k>\d+)\)")
# Where an action starts: dice or a keyword after whitespace (never a fixed column).
_START = re.compile(
    r"(?<!\S)(?:[1-6][1-6]\s*:|\?\?\?\?|(?:doubles|takes|drops|accepts|rejects|passes|beavers"
    r"|wins|losses|resigns|forfeits|lost\s+on\s+time|illegal\s+play)\b)",
    re.IGNORECASE,
)
_DICE = re.compile(r"(?P<a>[1-6])(?P<b>[1-6])\s*:\s*(?P<rest>.*)", re.DOTALL)
_CUBE = re.compile(r"(?P<word>doubles|beavers)(?:\s*=>\s*(?P<v>\d+))?\s*", re.IGNORECASE)
_WINS = re.compile(r"wins\s+(?P<v>\d+)\s+points?(?P<match>\s+and\s+the\s+match)?\s*", re.IGNORECASE)
_LOSSES = re.compile(
    r"(?:losses|resigns|forfeits|lost\s+on\s+time)(?:\s+(?P<v>\d+)\s+points?)?.*",
    re.IGNORECASE | re.DOTALL,
)
_ANSWERS = {
    "takes": TAKE,
    "accepts": TAKE,
    "drops": DROP,
    "passes": DROP,
    "rejects": DROP,
}
_ON = frozenset({"on", "yes", "true", "1"})
_OFF = frozenset({"off", "no", "false", "0"})


def _header(line: str) -> tuple[str, str] | None:
    """``; [Key "value"]`` as (key, value): the key has no ``"`` or ``]``, the
    value runs to the last ``"``, which only spaces may separate from the
    closing ``]``.  Done with str methods: the regex that said the same
    backtracked catastrophically on a ``; [`` followed by many spaces."""
    text = line.strip()
    if not text.startswith(";"):
        return None
    text = text[1:].lstrip()
    if not text.startswith("[") or not text.endswith("]"):
        return None
    inner = text[1:-1].rstrip()
    opening = inner.find('"')
    if opening < 0 or not inner.endswith('"') or opening == len(inner) - 1:
        return None
    key = inner[:opening]
    if "]" in key:
        return None
    return key.strip(), inner[opening + 1 : -1]


def _score_line(line: str) -> tuple[str, str, str, str] | None:
    """``name : score   name : score`` as (name 1, score 1, name 2, score 2).

    The second score follows the last colon; the first name ends at the
    first colon that a score and then a non-empty second name follow.  Each
    colon is tried with an anchored pattern that reads only the spaces and
    digits after it, so the whole line is read in linear time (the single
    regex it replaces took seconds on a 2 KB line)."""
    head, colon, tail = line.rpartition(":")
    if not colon:
        return None
    last = _SCORE_TAIL.fullmatch(tail.rstrip())
    if last is None:
        return None
    name_at = len(head) - len(head.lstrip())  # the first name starts here
    at = head.find(":")
    while at >= 0:
        middle = _SCORE_MIDDLE.match(head, at + 1) if name_at < at else None
        if middle is not None:
            # The lookahead saw a non-space: the second name is not empty.
            return head[:at].strip(), middle[1], head[middle.end() :].strip(), last[1]
        at = head.find(":", at + 1)
    # Only then an empty name (Galaxy's player whose account no longer exists):
    # the first, `` : 0        bob : 0``, or the second, ``alice : 0        : 0``.
    middle = _SCORE_MIDDLE.match(head, name_at + 1) if head[name_at : name_at + 1] == ":" else None
    if middle is not None:
        return "", middle[1], head[middle.end() :].strip(), last[1]
    at = head.rfind(":")
    alone = _SCORE_TAIL.fullmatch(head[at + 1 :].rstrip()) if at >= 0 else None
    if alone is not None:
        return head[:at].strip(), alone[1], "", last[1]
    return None


def _number(digits: str, field: str, line: int) -> int:
    """A number of the record (``field`` names it), refused past
    ``MAX_RECORD_NUMBER`` before any conversion (Python's int() fails on
    more than 4,300 digits)."""
    value = bounded_int(digits)
    if value is None:
        raise RecordError(
            "number_too_large",
            f"the {field.replace('_', ' ')} {digits[:12]}... is larger than {MAX_RECORD_NUMBER}",
            line,
            field=field,
            maximum=MAX_RECORD_NUMBER,
        )
    return value


def _flag(headers: dict[str, tuple[str, int]], key: str, default: bool) -> bool:
    value = headers.get(key)
    if value is None:
        return default
    word = value[0].strip().casefold()
    if word in _ON:
        return True
    if word in _OFF:
        return False
    raise RecordError("bad_header", f"{key} must be On or Off, not {value[0]!r}", value[1])


class _MatReader:
    def __init__(self, text: str, builder_class: type[MatchBuilder] = MatchBuilder) -> None:
        self.builder_class = builder_class
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = text.splitlines()
        self.warnings: list[RecordWarning] = []
        self.headers: list[tuple[str, str]] = []
        self.header_lines: dict[str, tuple[str, int]] = {}
        self.builder: MatchBuilder | None = None
        self.game_line: tuple[int, int] | None = None  # (line, number) awaiting its score line
        self.turn = 0  # last turn number in the current game
        self.names: tuple[str, str] | None = None

    def read(self) -> MatchRecord:
        for number, raw in enumerate(self.lines, start=1):
            line = raw.rstrip()
            if line.strip():
                self._line(number, line)
        end = len(self.lines) or 1
        if self.builder is None:
            raise RecordError("no_match_line", "no match length line (N point match)", end)
        if self.game_line is not None:
            raise RecordError("no_score_line", "a game without its score line", end)
        return self.builder.finish(end)

    def _line(self, n: int, line: str) -> None:
        header = _header(line)
        if header is not None:
            if self.builder is not None:
                self.warnings.append(
                    RecordWarning(n, "late_header", line.strip(), {"key": header[0]})
                )
                return
            key, value = header
            self.headers.append((key, value))
            self.header_lines[key.casefold()] = (value, n)
            return
        if line.lstrip().startswith(";"):
            return  # a comment
        length = _LENGTH.fullmatch(line)
        if length is not None:
            if self.builder is not None:
                raise RecordError("second_match", "a second match length line", n)
            self._start_match(n, _number(length["n"] or length["m"], "match_length", n))
            return
        if self.builder is None:
            if _GAME.fullmatch(line) or _TURN.match(line):
                raise RecordError("no_match_line", "a game before the match length line", n)
            self.warnings.append(RecordWarning(n, "ignored_text", line.strip(), {}))
            return
        game = _GAME.fullmatch(line)
        if game is not None:
            if self.game_line is not None:
                raise RecordError("no_score_line", "a game without its score line", n)
            self.game_line = (n, _number(game["n"], "game_number", n))
            self.turn = 0
            return
        if self.game_line is not None:
            score = None if _TURN.match(line) else _score_line(line)
            if score is None:
                raise RecordError(
                    "no_score_line", "the score line (name : score   name : score) is missing", n
                )
            self._score(n, score)
            return
        turn = _TURN.match(line)
        current = self.builder.current
        if current is None or (current.stated is not None and turn is None):
            raise RecordError("outside_game", "text outside a game (a Game n line missing?)", n)
        if turn is not None:
            k = _number(turn["k"], "turn_number", n)
            if k != self.turn + 1:
                raise RecordError(
                    "turn_number",
                    f"turn {k} where turn {self.turn + 1} was expected (a line is missing?)",
                    n,
                )
            self.turn = k
            self._actions(n, line, turn.end())
            return
        if _START.match(line, len(line) - len(line.lstrip())):
            self._actions(n, line, 0)
            return
        raise RecordError("unrecognised_line", f"unrecognised line {line.strip()!r}", n)

    def _start_match(self, n: int, length: int) -> None:
        h = self.header_lines
        variant = SHORT
        if "variation" in h:
            value, where = h["variation"]
            found = variant_of(value)
            if found is None:
                raise RecordError(
                    "unsupported_variation", f"variation {value!r} is not supported", where
                )
            variant = found
        settings = MatchSettings(
            length=length,
            variant=variant,
            crawford_rule=_flag(h, "crawford", True) and length > 0,
            jacoby=_flag(h, "jacoby", False),
            beaver=_flag(h, "beaver", False),
            players=(h.get("player 1", ("", 0))[0], h.get("player 2", ("", 0))[0]),
            headers=tuple(self.headers),
        )
        self.builder = self.builder_class(settings, self.warnings)

    def _score(self, n: int, m: tuple[str, str, str, str]) -> None:
        assert self.builder is not None and self.game_line is not None
        names = (m[0], m[2])
        written_score = (_number(m[1], "score", n), _number(m[3], "score", n))
        builder = self.builder
        if self.names is None:
            self.names = names
            for side, name in enumerate(names):
                written = builder.settings.players[side]
                if not name:
                    # Galaxy's player whose account no longer exists: the match
                    # still imports (the importer names its players anyway).
                    self.warnings.append(
                        RecordWarning(
                            n, "empty_name", f"player {side + 1} has no name", {"player": side + 1}
                        )
                    )
                elif written and written != name:
                    self.warnings.append(
                        RecordWarning(
                            n,
                            "player_name",
                            f"player {side + 1} is {written!r} in the header",
                            {"player": side + 1, "name": name, "header": written},
                        )
                    )
            builder.settings = replace(builder.settings, players=names)
        elif names != self.names:
            self.warnings.append(
                RecordWarning(
                    n,
                    "names_differ",
                    f"names {names} differ from game 1's {self.names}",
                    {"names": list(names), "first": list(self.names)},
                )
            )
        line, number = self.game_line
        self.game_line = None
        builder.start_game(line, number=number, score=written_score, score_line=n)

    def _actions(self, n: int, line: str, start: int) -> None:
        assert self.builder is not None
        rest = line[start:]
        starts = [m.start() for m in _START.finditer(rest)]
        lead = rest[: starts[0]] if starts else rest
        if lead.strip():
            raise RecordError("bad_action", f"unrecognised action {lead.strip()!r}", n)
        if len(starts) > 2:
            raise RecordError("too_many_actions", "more than two actions on one line", n)
        texts = [
            rest[at : starts[i + 1] if i + 1 < len(starts) else len(rest)].strip()
            for i, at in enumerate(starts)
        ]
        # Galaxy may write the Wins after a right-column Losses further right on the
        # same line: after a resignation the Wins's column is not read (match_builder).
        resigned_then_wins = (
            len(texts) == 2 and _LOSSES.fullmatch(texts[0]) and _WINS.fullmatch(texts[1])
        )
        for i, (at, text) in enumerate(zip(starts, texts, strict=True)):
            right = i == 1 or start + at >= _RIGHT_COLUMN
            if i == 0 and len(starts) == 2 and right and not resigned_then_wins:
                raise RecordError("bad_columns", "two actions but the left column is blank", n)
            action = self._action(n, 1 if right else 0, text)
            if action is not None:
                self.builder.act(action)

    def _action(self, n: int, side: int, text: str) -> RecordAction | None:
        dice = _DICE.fullmatch(text)
        if dice is not None:
            rest = dice["rest"].strip()
            moves: list[Move] = []
            if rest and rest.casefold() != "cannot move":
                try:
                    moves = parse_moves(rest)
                except EngineError as error:
                    raise error_at(error, n) from error
            return RecordAction(n, side, PLAY, (int(dice["a"]), int(dice["b"])), tuple(moves))
        word = text.split()[0].casefold()
        if text == "????":
            return RecordAction(n, side, ROLL)
        cube = _CUBE.fullmatch(text)
        if cube is not None:
            value = _number(cube["v"], "cube_value", n) if cube["v"] else None
            kind = DOUBLE if cube["word"].casefold() == "doubles" else BEAVER
            return RecordAction(n, side, kind, value=value)
        if word in _ANSWERS and len(text.split()) == 1:
            return RecordAction(n, side, _ANSWERS[word])
        wins = _WINS.fullmatch(text)
        if wins is not None:
            return RecordAction(
                n,
                side,
                WIN,
                value=_number(wins["v"], "points", n),
                match_won=bool(wins["match"]),
            )
        losses = _LOSSES.fullmatch(text)
        if losses is not None:
            value = _number(losses["v"], "points", n) if losses["v"] else None
            return RecordAction(n, side, RESIGN, value=value)
        if word == "illegal":
            self.warnings.append(RecordWarning(n, "illegal_play_note", text, {"note": text}))
            return None
        raise RecordError("bad_action", f"unrecognised action {text!r}", n)


def parse_mat(text: str, *, builder_class: type[MatchBuilder] = MatchBuilder) -> MatchRecord:
    """Read and check a ``.mat`` record; raises ``RecordError`` at the first discrepancy.

    ``builder_class`` replays the games (a subclass may check plays another
    way: the benchmark checks them with GNU Backgammon's generator)."""
    return _MatReader(text, builder_class).read()


def replay_mat(text: str) -> dict[str, Any]:
    """The checked match as JSON-ready data (see ``MatchRecord.to_dict``)."""
    return parse_mat(text).to_dict()


# --- Writing .mat text -------------------------------------------------------------


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _column(action: RecordAction) -> str:
    if action.kind in (PLAY, ROLL):
        dice = f"{action.dice[0]}{action.dice[1]}:" if action.dice else "????"
        if action.kind == ROLL or action.play is None or not action.play.steps:
            return dice
        return f"{dice} {format_play(action.play)}"
    if action.kind == DOUBLE:
        return f" Doubles => {action.value}"
    if action.kind == BEAVER:
        return f" Beavers => {action.value}"
    return {TAKE: " Takes", DROP: " Drops"}[action.kind]


def export_mat(match: MatchRecord) -> str:
    """The match in GNU Backgammon's ``.mat`` layout (columns 5 and 33)."""
    out: list[str] = [f'; [{key} "{value}"]' for key, value in match.settings.headers]
    if out:
        out.append("")
    out += [f" {match.length} point match", ""]
    names = match.players
    score = [0, 0]
    for game in match.games:
        out.append(f" Game {game.number}")
        left = f" {names[0]} : {score[0]}"
        out.append(f"{left:<31} {names[1]} : {score[1]}")
        rows: list[list[str]] = []
        for action in game.actions:
            if action.side == 0 or not rows or rows[-1][1]:
                rows.append(["", ""])
            rows[-1][action.side] = _column(action)
        result = game.result
        score[result.winner] += result.points
        won = match.length and score[result.winner] >= match.length
        if match.resigned is not None and game is match.games[-1]:
            # The whole match resigned: Galaxy's Losses in the resigner's column.
            won = True
            if match.resigned == 0 or not rows or rows[-1][1]:
                rows.append(["", ""])
            rows[-1][match.resigned] = f" Losses {_points(result.points)}"
        wins = f" Wins {_points(result.points)}{' and the match' if won else ''}"
        # As GNU Backgammon: the right player's Wins goes in a free right cell
        # of the last turn line (its importer misreads it on a line of its own
        # after a left "Drops"); otherwise Wins has a line of its own.
        own_line = not (result.winner == 1 and rows and not rows[-1][1])
        if not own_line:
            rows[-1][1] = wins
        for k, (first, second) in enumerate(rows, start=1):
            head = f"{k:3d}) {first}"
            gap = max(_RIGHT - len(head), 2)
            out.append(f"{head}{' ' * gap}{second}".rstrip() if second else head.rstrip())
        if own_line:
            out.append(" " * (_LEFT if result.winner == 0 else _RIGHT) + wins)
        out.append("")
    return "\n".join(out) + "\n"


class _PlayersRead(Exception):
    def __init__(self, names: tuple[str, str]) -> None:
        self.names = names


class _PlayersReader(_MatReader):
    """Reads a file only as far as game 1's score line, for the players' names."""

    def _score(self, n: int, m: tuple[str, str, str, str]) -> None:
        raise _PlayersRead((m[0], m[2]))


def read_players(text: str) -> tuple[str, str]:
    """The players' names as game 1's score line writes them, without reading the
    games (an archive's scan names every file's players before any is imported);
    ``RecordError`` as ``parse_mat`` gives it for what comes before that line.
    ``parse_mat`` reads the same names when it reads the whole file."""
    try:
        _PlayersReader(text).read()
    except _PlayersRead as found:
        return found.names
    raise AssertionError("a file that reads to its end has a score line")  # pragma: no cover
