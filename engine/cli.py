"""``python -m engine``: legal plays of a Position ID, and replays of game records.

Output is JSON on stdout.  Bad input (including bad usage) exits with status 2
and prints only ``{"error": {"code": ..., "reason": ..., ...}}``.

    python -m engine plays --variant short --position 4HPwATDgc/ABMA --dice 3-1
    python -m engine plays --variant garanquet --position ... --dice 5-5-4
    python -m engine plays --variant soldiers --position 'W: ... | B: ... | W' --dice 6-5
    python -m engine replay game.txt --variant long [--ruleset long-article]
    python -m engine replay game.txt --variant long --ruleset-file federation.json
    python -m engine replay game.txt --variant long --format azn
    python -m engine replay match.mat

``plays`` reads the ID as GNU Backgammon does (the side on roll is the mover)
and writes each resulting position the same way round, nothing swapped.
For ``soldiers`` (``engine.soldiers``) the position is the text of RULES.md
§3.1 naming the side to move, and each resulting position is written in its
canonical text with the opponent to move.
``replay`` reads the record syntax described in ``engine.records.replay`` (``std``),
Azerbaijani notation (``azn``, ``engine.records.azn_replay``) or a GNU Backgammon / Jellyfish
match file (``mat``, ``engine.records.matfile``; the default for a ``.mat`` file name).
A match file that imports prints, besides its games and result, its ``warnings``
(``line``, ``code``, ``data``, ``text``): what the file writes otherwise than the
engine derives without changing who won the match (exit status 0).
The two importers are loaded only when asked for.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from engine import movegen
from engine.errors import EngineError
from engine.records.gnubgid import decode_position_id, encode_position_id
from engine.records.notation import format_play
from engine.records.replay import replay
from engine.rules.board import WHITE
from engine.rules.game import GameRules
from engine.rules.scoring import ScoringPreset, get_preset, preset_from_dict
from engine.rules.variants import VARIANTS, Variant
from engine.soldiers import plays_json

EXIT_BAD_INPUT = 2
FORMATS = ("std", "azn", "mat")
_DICE = re.compile(r"\s*([1-6])(?:\s*-\s*([1-6]))+\s*")

_EPILOG = """\
Soldiers (RULES.md section 3.1, checker classes) is answered by "plays" only,
with a position text instead of a Position ID:
  plays --variant soldiers --position 'W: K24 P24 ... | B: ... | W' --dice 6-5
"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    names = ", ".join(VARIANTS)
    parser = _Parser(
        prog="python -m engine",
        description=textwrap.fill(
            f"Nardy rules engine.  Variants: {names}.", 79, break_on_hyphens=False
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plays = commands.add_parser(
        "plays",
        help="every legal play of a roll",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plays.add_argument("--variant", required=True, help=f"one of {names}")
    plays.add_argument(
        "--position",
        required=True,
        help="GNU Backgammon Position ID (soldiers: a position text 'W: ... | B: ... | W')",
    )
    plays.add_argument(
        "--dice", required=True, help="the roll, e.g. 3-1 (three dice in garanquet: 5-5-4)"
    )
    rep = commands.add_parser(
        "replay",
        help="replay a game record and print its result",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("file", help="the record")
    rep.add_argument(
        "--format",
        choices=FORMATS,
        help="std: one turn per line (default); azn: Azerbaijani notation; "
        "mat: GNU Backgammon / Jellyfish match file (default for *.mat)",
    )
    rep.add_argument("--variant", help=f"one of {names} (std and azn)")
    ruleset = rep.add_mutually_exclusive_group()
    ruleset.add_argument("--ruleset", help="scoring preset name (default: the variant's)")
    ruleset.add_argument(
        "--ruleset-file", help="a user-defined scoring preset as JSON (see engine.rules.scoring)"
    )
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
    if variant.checker_classes:
        # Soldiers: its positions are texts with classes and pins (no Position ID
        # holds them), its plays those of engine.soldiers.
        return plays_json(args.position, dice)
    position = decode_position_id(args.position, variant=variant)
    first_turn = movegen.is_first_turn(variant, position, WHITE)
    return [
        {
            "notation": format_play(play),
            "position": encode_position_id(play.position, mover=WHITE),
        }
        for play in movegen.legal_plays(variant, position, WHITE, dice, first_turn=first_turn)
    ]


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as err:
        raise EngineError(
            "unreadable_file", f"cannot read {path}: {err.strerror}", file=path
        ) from err
    except UnicodeDecodeError as err:
        raise EngineError("unreadable_file", f"{path} is not UTF-8 text", file=path) from err


def _preset(args: argparse.Namespace) -> ScoringPreset | None:
    if args.ruleset:
        return get_preset(args.ruleset)
    if args.ruleset_file:
        try:
            data = json.loads(_read(args.ruleset_file))
        except json.JSONDecodeError as err:
            raise EngineError(
                "bad_preset_file",
                f"{args.ruleset_file} is not JSON: {err.msg} at line {err.lineno}",
                file=args.ruleset_file,
                line=err.lineno,
            ) from err
        return preset_from_dict(data)
    return None


def _importer(module: str, function: str) -> Callable[..., Any]:
    """The format's importer, loaded on first use so the other formats work without it."""
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        raise EngineError(
            "format_unavailable",
            f"this installation has no {module} importer",
            module=module,
        ) from err
    found: Callable[..., Any] = getattr(loaded, function)
    return found


def _replay(args: argparse.Namespace) -> Any:
    fmt = args.format or ("mat" if args.file.casefold().endswith(".mat") else "std")
    if fmt == "mat":
        if args.variant or args.ruleset or args.ruleset_file:
            raise _UsageError(
                "a .mat file is a backgammon match: --variant and rulesets do not apply"
            )
        return _importer("engine.records.matfile", "replay_mat")(_read(args.file))
    if not args.variant:
        raise _UsageError(f"--variant is required with --format {fmt}")
    variant = _variant(args.variant)
    preset = _preset(args)
    text = _read(args.file)
    if fmt == "azn":
        return _importer("engine.records.azn_replay", "replay_azn")(text, variant, preset)
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
