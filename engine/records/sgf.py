"""GNU Backgammon ``.sgf`` match records (SGF FF[4], GM[6]): import and export.

One game tree per game.  The root node holds the game's information:
``MI[length:N][game:i][ws:a][bs:b]`` (match length, game index, White's and
Black's score before the game), ``PW``/``PB`` (player names), ``RU`` (rules,
colon-separated: ``Crawford``, ``CrawfordGame``, ``Jacoby``, ``Nackgammon``,
``Hypergammon3``), ``RE[W+n]`` / ``RE[B+nR]`` (winner, points, ``R`` when the
loser resigned), ``DT``, ``EV``, ``RO``, ``PC``.  Each further node is one
action: ``W[31hefe]`` (dice, then a from/to pair of letters per checker step),
``B[66]`` (no play), ``W[double]``, ``B[take]``, ``B[drop]`` (a ``double``
that answers a double is a beaver).  Points are letters in White's numbering
for both sides: ``a``..``x`` are White's 1..24 (Black's 24..1), ``y`` the
bar, ``z`` off.

White is player 1 (engine side 0), as in the ``.mat`` export of the same
match.  The games are read into the format-neutral match record
(``engine.records.record``) and replayed by
``engine.records.match_builder.MatchBuilder``, so the checks and the result
(``MatchRecord``) are those of a ``.mat`` import; errors are ``RecordError``
(``SgfError`` for the SGF text itself) with the SGF line of the node (or of the root, for the
game's information and result).  Decisions: game trees are read along their
first variation; analysis properties are ignored; setup properties (``AE``,
``AB``, ``AW``, ``PL``, ``DI``, ``CV``, ``CP``) are refused; a match without
``Crawford`` in ``RU`` is played without the Crawford rule (GNU Backgammon
writes it whenever the rule is on); a money session allows beavers.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from engine.errors import MAX_RECORD_NUMBER, bounded_int
from engine.records.match_builder import MatchBuilder
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
    RecordError,
    RecordWarning,
)
from engine.rules.board import BAR, OFF
from engine.rules.plays import Move
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant

__all__ = ["SgfError", "export_sgf", "parse_sgf"]

_TOKEN: Final = re.compile(
    r"(?P<space>\s+)|(?P<open>\()|(?P<close>\))|(?P<node>;)"
    r"|(?P<ident>[A-Za-z]+)|(?P<value>\[(?:[^\]\\]|\\.)*\])",
    re.DOTALL,
)
_SETUP: Final = frozenset({"AE", "AB", "AW", "PL", "DI", "CV", "CP"})
_RESULT: Final = re.compile(r"(?P<side>[WB])\+(?P<points>\d+)(?P<resign>R)?", re.IGNORECASE)
_RULE_VARIANTS: Final = {"nackgammon": NACKGAMMON, "hypergammon3": HYPERGAMMON}
_MOVE: Final = re.compile(r"(?P<a>[1-6])(?P<b>[1-6])(?P<steps>(?:[a-z][a-z]){0,4})")


class SgfError(RecordError):
    """Text that is not a readable backgammon SGF record."""


@dataclass(frozen=True, slots=True)
class _Node:
    line: int
    props: dict[str, list[str]]
    lines: dict[str, int]  # where each property is written


def _unescape(raw: str) -> str:
    # SGF text: "\\\n" is a soft line break; a backslash escapes the next character.
    return re.sub(r"\\(\r\n|\n|.)", lambda m: "" if m[1] in ("\n", "\r\n") else m[1], raw)


def _games(text: str, *, first_node: bool = False) -> list[list[_Node]]:
    """Each game tree's main line of nodes (``first_node``: only the first tree's
    first node, the text after it unread)."""
    breaks = [m.start() for m in re.finditer("\n", text)]

    def line_at(offset: int) -> int:
        return bisect_right(breaks, offset - 1) + 1

    def tokens() -> Iterator[tuple[str, str, int]]:
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise SgfError("sgf_syntax", f"unexpected {text[pos]!r}", line_at(pos))
            kind = m.lastgroup or "space"
            if kind != "space":
                yield kind, m.group(), m.start()
            pos = m.end()

    # Read iteratively with an explicit stack of open trees: a recursive
    # reader hit Python's recursion limit on ~1,000 nested "(".
    games: list[list[_Node]] = []
    stack: list[_Tree] = []
    main_line: list[_Node] = []
    for kind, value, offset in tokens():
        if first_node and main_line and (kind in ("node", "open", "close")):
            return [main_line[:1]]
        if not stack:
            if kind != "open":
                raise SgfError("sgf_syntax", f"unexpected {value[:20]!r}", line_at(offset))
            main_line = []
            stack.append(_Tree(keep=True))
            continue
        tree = stack[-1]
        if kind == "node" and not tree.branches:
            tree.node = _Node(line_at(offset), {}, {})
            if tree.keep:
                main_line.append(tree.node)
            tree.ident = ""
        elif kind == "ident" and tree.node is not None and not tree.branches:
            tree.ident = value.upper()
            tree.node.lines.setdefault(tree.ident, line_at(offset))
        elif kind == "value" and tree.node is not None and tree.ident and not tree.branches:
            tree.node.props.setdefault(tree.ident, []).append(_unescape(value[1:-1]))
        elif kind == "open":
            # The first variation continues the main line; later ones are
            # read for syntax only.
            stack.append(_Tree(keep=tree.keep and not tree.branches))
            tree.branches += 1
        elif kind == "close":
            stack.pop()
            if not stack and main_line:
                games.append(main_line)
        else:
            raise SgfError("sgf_syntax", f"unexpected {value[:20]!r}", line_at(offset))
    if stack:
        raise SgfError("sgf_syntax", "a game tree is not closed", len(breaks) + 1)
    return games


@dataclass(slots=True)
class _Tree:
    """A game tree being read: whether its nodes are on the main line, the
    variations opened in it so far, and its current node and property."""

    keep: bool
    branches: int = 0
    node: _Node | None = None
    ident: str = ""


def _one(node: _Node, key: str) -> str | None:
    values = node.props.get(key)
    return values[0] if values else None


def _match_info(node: _Node) -> dict[str, int]:
    """``MI[key:value]`` entries with a number for value (others are ignored,
    as GNU Backgammon does); a number must be 0..MAX_RECORD_NUMBER."""
    info: dict[str, int] = {}
    for item in node.props.get("MI", []):
        key, _, value = item.partition(":")
        written = value.strip()
        if not written.lstrip("-").isdecimal():
            continue
        number = None if written.startswith("-") else bounded_int(written)
        if number is None:
            raise SgfError(
                "bad_match_info",
                f"MI[{key.strip()[:20]}:{written[:20]}] is not a number 0..{MAX_RECORD_NUMBER}",
                node.lines.get("MI", node.line),
                key=key.strip(),
                value=written,
            )
        info[key.strip().casefold()] = number
    return info


def _rules(node: _Node) -> set[str]:
    return {r.strip().casefold() for v in node.props.get("RU", []) for r in v.split(":")}


def _point(letter: str, side: int) -> int:
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    index = ord(letter) - ord("a")
    return index + 1 if side == 0 else 24 - index


def _letter(q: int, side: int) -> str:
    if q == BAR:
        return "y"
    if q == OFF:
        return "z"
    return chr(ord("a") + (q - 1 if side == 0 else 24 - q))


def _settings(root: _Node) -> MatchSettings:
    gm = _one(root, "GM")
    if gm is not None and gm.strip() != "6":
        raise SgfError("not_backgammon", f"GM[{gm}] is not backgammon (GM[6])", root.line)
    rules = _rules(root)
    variant: Variant = SHORT
    for rule in rules:
        if rule in _RULE_VARIANTS:
            variant = _RULE_VARIANTS[rule]
        elif rule.startswith("hypergammon"):
            raise SgfError("unsupported_variation", f"{rule} is not supported", root.line)
    length = _match_info(root).get("length", 0)
    players = (_one(root, "PW") or "", _one(root, "PB") or "")
    headers: list[tuple[str, str]] = []
    for key, name in (("EV", "Event"), ("RO", "Round"), ("PC", "Site")):
        value = _one(root, key)
        if value:
            headers.append((name, value))
    headers += [("Player 1", players[0]), ("Player 2", players[1])]
    date = _one(root, "DT")
    if date:
        headers.append(("EventDate", date.replace("-", ".")))
    if variant is not SHORT:
        headers.append(("Variation", variant.name.capitalize()))
    crawford = length > 0 and "crawford" in rules
    jacoby = length == 0 and "jacoby" in rules
    if length:
        headers.append(("Crawford", "On" if crawford else "Off"))
    elif jacoby:
        headers.append(("Jacoby", "On"))
    return MatchSettings(
        length=length,
        variant=variant,
        crawford_rule=crawford,
        jacoby=jacoby,
        # SGF has no beaver rule: a double answering a double is one.
        beaver=length == 0,
        players=players,
        headers=tuple(headers),
    )


def parse_sgf(text: str) -> MatchRecord:
    """Read and check a GNU Backgammon SGF match; ``RecordError`` at the first discrepancy."""
    games = _games(text[1:] if text.startswith("\ufeff") else text)
    if not games:
        raise SgfError("no_games", "the file holds no game tree", 1)
    settings = _settings(games[0][0])
    warnings: list[RecordWarning] = []
    builder = MatchBuilder(settings, warnings)
    for nodes in games:
        root = nodes[0]
        info = _match_info(root)
        if info.get("length", 0) != settings.length:
            raise SgfError(
                "match_length", "the match length differs from the first game's", root.line
            )
        names = (_one(root, "PW") or "", _one(root, "PB") or "")
        if names != settings.players:
            warnings.append(RecordWarning(root.line, "player_name", f"players {names}"))
        score = (info["ws"], info["bs"]) if "ws" in info and "bs" in info else None
        crawford = "crawfordgame" in _rules(root) if settings.crawford_rule else None
        builder.start_game(
            root.line, score=score, score_line=root.lines.get("MI"), crawford=crawford
        )
        for node in nodes:
            _node(builder, node)
        result = _one(root, "RE")
        if result is not None:
            line = root.lines["RE"]
            m = _RESULT.fullmatch(result.strip())
            if m is None:
                raise SgfError("bad_result", f"RE[{result}] is not W+n or B+n(R)", line)
            side = 0 if m["side"].upper() == "W" else 1
            if m["resign"]:
                builder.act(RecordAction(line, 1 - side, RESIGN))
            points = bounded_int(m["points"])
            if points is None:
                raise SgfError(
                    "number_too_large",
                    f"RE[{result[:20]}...]: the points won are larger than {MAX_RECORD_NUMBER}",
                    line,
                    field="points",
                    maximum=MAX_RECORD_NUMBER,
                )
            builder.act(RecordAction(line, side, WIN, value=points))
    return builder.finish(games[-1][-1].line)


def _node(builder: MatchBuilder, node: _Node) -> None:
    setup = _SETUP.intersection(node.props)
    if setup:
        raise SgfError(
            "sgf_setup",
            f"set-up properties ({', '.join(sorted(setup))}) are not supported",
            node.line,
        )
    for key, side in (("W", 0), ("B", 1)):
        for value in node.props.get(key, []):
            builder.act(_action(builder, node.line, side, value.strip()))


def _action(builder: MatchBuilder, line: int, side: int, value: str) -> RecordAction:
    word = value.casefold()
    if word == "double":
        game = builder.current
        pending = game is not None and game.state.offer is not None
        return RecordAction(line, side, BEAVER if pending else DOUBLE)
    if word == "take":
        return RecordAction(line, side, TAKE)
    if word == "drop":
        return RecordAction(line, side, DROP)
    m = _MOVE.fullmatch(value)
    if m is None:
        raise SgfError("bad_move", f"{value!r} is not a move (dice, then from/to letters)", line)
    steps = m["steps"]
    moves = []
    for k in range(0, len(steps), 2):
        origin, dest = _point(steps[k], side), _point(steps[k + 1], side)
        if origin == OFF or dest == BAR or (dest != OFF and dest >= origin):
            raise SgfError("bad_move", f"{steps[k : k + 2]!r} is not a checker step", line)
        moves.append(Move(origin, dest))
    return RecordAction(line, side, PLAY, (int(m["a"]), int(m["b"])), tuple(moves))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def export_sgf(match: MatchRecord, *, application: str = "Zary") -> str:
    """The match as GNU Backgammon writes it: one game tree per game."""
    settings = match.settings
    headers = {key.casefold(): value for key, value in settings.headers}
    rules: list[str] = []
    if settings.variant is NACKGAMMON:
        rules.append("Nackgammon")
    elif settings.variant is HYPERGAMMON:
        rules.append("Hypergammon3")
    out: list[str] = []
    score = [0, 0]
    for index, game in enumerate(match.games):
        root = [
            f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]",
            f"MI[length:{match.length}][game:{index}][ws:{score[0]}][bs:{score[1]}]",
            f"PW[{_escape(match.players[0])}]PB[{_escape(match.players[1])}]",
        ]
        if index == 0:
            date = headers.get("eventdate", "").replace(".", "-")
            for key, value in (
                ("DT", date),
                ("EV", headers.get("event", "")),
                ("RO", headers.get("round", "")),
                ("PC", headers.get("site", "")),
            ):
                if value:
                    root.append(f"{key}[{_escape(value)}]")
        game_rules = list(rules)
        if match.length and settings.crawford_rule:
            game_rules[:0] = ["Crawford", "CrawfordGame"] if game.crawford else ["Crawford"]
        if not match.length and settings.jacoby:
            game_rules.insert(0, "Jacoby")
        if game_rules:
            root.append(f"RU[{':'.join(game_rules)}]")
        result = game.result
        resigned = "R" if result.end == "resign" else ""
        root.append(f"RE[{'WB'[result.winner]}+{result.points}{resigned}]")
        out.append("".join(root))
        for action in game.actions:
            out.append(f";{'WB'[action.side]}[{_value(action)}]")
        out[-1] += ")"
        score[result.winner] += result.points
    return "\n".join(out) + "\n"


def _value(action: RecordAction) -> str:
    if action.kind in (DOUBLE, BEAVER):
        return "double"
    if action.kind == TAKE:
        return "take"
    if action.kind == DROP:
        return "drop"
    dice = f"{action.dice[0]}{action.dice[1]}" if action.dice else ""
    if action.kind == ROLL or action.play is None:
        return dice
    assert action.kind == PLAY
    steps = "".join(
        _letter(s.origin, action.side) + _letter(s.dest, action.side) for s in action.play.steps
    )
    return dice + steps


def read_players(text: str) -> tuple[str, str]:
    """The players' names (``PW``, ``PB``) of the first game, without replaying the
    games; ``SgfError`` for a file that is no game tree.  ``parse_sgf`` reads the
    same names when it reads the whole file."""
    games = _games(text[1:] if text.startswith("\ufeff") else text, first_node=True)
    if not games:
        raise SgfError("no_games", "the file holds no game tree", 1)
    return _settings(games[0][0]).players
