"""``python -m engine``: legal plays of a Position ID, and replays of game records.

Output is JSON on stdout.  Bad input (including bad usage) exits with status 2
and prints only ``{"error": {"code": ..., "reason": ..., ...}}``.

    python -m engine plays --variant short --position 4HPwATDgc/ABMA --dice 3-1
    python -m engine replay game.txt --variant long [--ruleset long-article]

``plays`` reads the ID as GNU Backgammon does (the side on roll is the mover)
and writes each resulting position the same way round, nothing swapped.
``replay`` reads the record syntax described in ``engine.replay``.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from engine import movegen
from engine.board import WHITE
from engine.errors import EngineError
from engine.game import GameRules
from engine.gnubgid import decode_position_id, encode_position_id
from engine.notation import format_play
from engine.replay import replay
from engine.scoring import get_preset
from engine.variants import VARIANTS, Variant

EXIT_BAD_INPUT = 2
_DICE = re.compile(r"\s*([1-6])(?:\s*-\s*([1-6]))+\s*")


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="Nardy rules engine")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plays = commands.add_parser("plays", help="every legal play of a roll")
    plays.add_argument("--variant", required=True, help=f"one of {', '.join(VARIANTS)}")
    plays.add_argument("--position", required=True, help="GNU Backgammon Position ID")
    plays.add_argument("--dice", required=True, help="the roll, e.g. 3-1")
    rep = commands.add_parser("replay", help="replay a game record and print its result")
    rep.add_argument("file", help="the record, one turn per line")
    rep.add_argument("--variant", required=True, help=f"one of {', '.join(VARIANTS)}")
    rep.add_argument("--ruleset", help="scoring preset (default: the variant's)")
    return parser


def _variant(name: str) -> Variant:
    variant = VARIANTS.get(name)
    if variant is None:
        raise EngineError(
            "unknown_variant",
            f"unknown variant {name!r}; known: {', '.join(VARIANTS)}",
            variant=name,
            known=list(VARIANTS),
        )
    return variant


def _dice(text: str, variant: Variant) -> tuple[int, ...]:
    if not _DICE.fullmatch(text):
        raise EngineError("invalid_dice", f"{text!r} is not a roll like 3-1", dice=text)
    values = tuple(int(v) for v in re.findall(r"[1-6]", text))
    if len(values) != variant.dice:
        raise EngineError(
            "invalid_dice",
            f"{variant.name} is played with {variant.dice} dice, not {len(values)}",
            dice=text,
        )
    return values


def _plays(args: argparse.Namespace) -> Any:
    variant = _variant(args.variant)
    dice = _dice(args.dice, variant)
    position = decode_position_id(args.position, checkers=variant.checkers)
    first_turn = movegen.is_first_turn(variant, position, WHITE)
    return [
        {
            "notation": format_play(play),
            "position": encode_position_id(play.position, mover=WHITE),
        }
        for play in movegen.legal_plays(variant, position, WHITE, dice, first_turn=first_turn)
    ]


def _replay(args: argparse.Namespace) -> Any:
    variant = _variant(args.variant)
    preset = get_preset(args.ruleset) if args.ruleset else None
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise EngineError(
            "unreadable_file", f"cannot read {args.file}: {err.strerror}", file=args.file
        ) from err
    except UnicodeDecodeError as err:
        raise EngineError(
            "unreadable_file", f"{args.file} is not UTF-8 text", file=args.file
        ) from err
    return replay(text, GameRules(variant, scoring=preset)).to_dict()


def _emit(data: Any) -> None:
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        data = _plays(args) if args.command == "plays" else _replay(args)
    except _UsageError as err:
        _emit({"error": {"code": "usage", "reason": str(err)}})
        return EXIT_BAD_INPUT
    except EngineError as err:
        _emit({"error": err.as_dict()})
        return EXIT_BAD_INPUT
    _emit(data)
    return 0
