"""One game as an immutable state machine: opening, cube, plays, resignations, result.

Every action is a pure function ``action(state, ...) -> GameState`` that
returns a new state or raises ``GameStateError`` (stable ``code``, plain
``reason``); illegal checker plays raise ``IllegalPlay`` from the move
generator.  Recorders do not call them one by one: they apply typed actions
through ``engine.rules.actions.apply``, the one turn dispatch.  The cube follows RULES.md §2; beaver, Jacoby and automatic
doubles are money-play options and are refused inside a match.

Decisions where the rules are silent (documented here, tested in
tests/engine/test_game.py):

- Nobody may double on the game's opening turn: with ``use_opening_dice`` the
  dice are already thrown, and with ``reroll`` the re-roll is part of the
  opening.
- Jacoby: mars/koks count single "if nobody doubled" (002), so only a taken
  double (or beaver) turns the cube for Jacoby; automatic doubles do not.  The
  result keeps its board name (``mars``) with multiplier 1 and ``jacoby=True``.
  An accepted resignation is worth what the same result would be worth.
- A passed double ends the game with result ``pass``, multiplier 1 and
  ``cube`` = the stake lost (the value before the refused double).
- A resignation is offered by the side on turn (or a named side) while a roll
  or a play is awaited; rejecting it returns to that phase.
- ``set_dice`` is only for variants where the mover names the dice; recorded
  dice of other variants go through ``roll`` with a ``RecordedDice`` source.

Game-level rules of the variants, read from ``Variant`` flags:

- ``first_hit_wins`` (Sudden death): the turn that first hits ends the game,
  won by the hitter, scored by the preset (``single``: 1), ``end`` "hit".  The
  turn is still a whole legal play (the forced-move rules do not change), and
  the final position is where that play leaves the board.
- ``nuclear``: ``explode`` before rolling, by the side that may use the bomb
  (nobody owns it at the start: either side may; afterwards only the side it
  passed to).  Like a double it is refused on the game's opening turn.  A
  bomb may be set off when no blot stands anywhere: the rules do not forbid
  it, and it still passes the bomb.
- ``pinning`` (Plakoto): a play after which the opponent's mother checker is
  pinned ends the game at once, the mother's owner losing as the preset says
  (``plakoto``: mars, 2); ``end`` "mother_pinned".
- ``checker_classes`` (Soldiers): the start is built from ``GameRules.options``
  (army and placement) and the plays are the classes' (``engine.soldiers``,
  through the movegen entry points); everything else here (opening, cube,
  resignations, Crawford, the end when the last checker is off, §6 scoring of
  the plain counts with pinned checkers where they stand) is short nardy's.
- Openings: ``use_opening_dice`` and ``higher_plays_white`` play the two
  opening dice.  Sides are the players' seats (0 the first player, 1 the
  second) in every variant; with ``higher_plays_white`` (Nauka) the higher
  thrower plays White and starts, and ``GameState.white_player`` says which
  seat that is (elsewhere seat 0 plays White).  Colours are only names there:
  both sides' starts and paths are mirror images, so which seat is White
  changes no rule, and the seats stay the players' as every caller keeps them.
  Where the variant rolls more than two dice (Garanquet; RULES is silent) the
  opening dice only choose the starter, who then rolls all the dice anew.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from engine import movegen
from engine.errors import GameStateError, IllegalPlay
from engine.rules.board import BLACK, OFF, WHITE, Position, other
from engine.rules.dice import DiceSource
from engine.rules.plays import Move, Play
from engine.rules.scoring import CONDITIONS, ScoringPreset, get_preset, score
from engine.rules.variants import NO_OPTIONS, Opening, Variant, VariantOptions
from engine.soldiers import bridge


class Phase(Enum):
    OPENING = "opening"
    ROLL = "roll"  # the side on turn may roll (or name dice), double or resign
    TAKE = "take"  # a double (or beaver) awaits take or pass
    PLAY = "play"  # dice are known; the side on turn must play
    RESIGN = "resign"  # a resignation awaits acceptance
    FINISHED = "finished"


class Action(Enum):
    OPENING_ROLL = "opening_roll"
    SET_OPENING = "set_opening"
    ROLL = "roll"
    SET_DICE = "set_dice"
    SKIP_TURN = "skip_turn"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    PLAY = "play"
    RESIGN = "resign"
    ACCEPT_RESIGNATION = "accept_resignation"
    REJECT_RESIGNATION = "reject_resignation"
    EXPLODE = "explode"


END_BEAROFF = "bearoff"
END_PASS = "pass"
END_RESIGN = "resign"
END_HIT = "hit"  # first_hit_wins (Sudden death)
END_MOTHER_PINNED = "mother_pinned"  # pinning (Plakoto)


@dataclass(frozen=True, slots=True)
class GameRules:
    """How one game is played.  ``scoring``/``cube`` left as None take the
    variant's own preset and cube; beaver, Jacoby and automatic doubles
    (maximum count, 0 = off) are money-play options.  ``options`` are the
    variant's own (``Variant.option_names``: Soldiers' army and placement),
    checked here: a name the variant does not take is ``unknown_variant_option``,
    a value it cannot use is the variant's own error (``army_too_large``...)."""

    variant: Variant
    scoring: ScoringPreset | None = None
    cube: bool | None = None
    beaver: bool = False
    jacoby: bool = False
    automatic_doubles: int = 0
    options: VariantOptions = NO_OPTIONS

    def __post_init__(self) -> None:
        for name, _value in self.options:
            if name not in self.variant.option_names:
                raise GameStateError(
                    "unknown_variant_option",
                    f"{self.variant.name} has no option {name!r}",
                    option=name,
                    variant=self.variant.name,
                )
        if self.variant.checker_classes:
            bridge.game_options(self.options)  # raises the options' own error
        ad = self.automatic_doubles
        if isinstance(ad, bool) or not isinstance(ad, int) or ad < 0:
            raise GameStateError(
                "invalid_rules", "automatic_doubles must be a count of 0 or more", value=ad
            )
        if not self.cube_enabled:
            for option in ("beaver", "jacoby"):
                if getattr(self, option):
                    raise GameStateError(
                        "invalid_rules", f"{option} needs the doubling cube", option=option
                    )
            if ad:
                raise GameStateError(
                    "invalid_rules",
                    "automatic doubles need the doubling cube",
                    option="automatic_doubles",
                )

    @property
    def preset(self) -> ScoringPreset:
        return self.scoring if self.scoring is not None else get_preset(self.variant.scoring)

    @property
    def cube_enabled(self) -> bool:
        return self.variant.cube if self.cube is None else self.cube

    @property
    def money_options(self) -> bool:
        return self.beaver or self.jacoby or self.automatic_doubles > 0


@dataclass(frozen=True, slots=True)
class MatchContext:
    """The match a game belongs to, for information (length N, score before the game)."""

    length: int
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: int
    result_name: str
    multiplier: int
    cube: int
    points: int  # cube × multiplier
    end: str  # "bearoff" | "pass" | "resign" | "hit" | "mother_pinned"
    jacoby: bool = False  # the Jacoby rule cut a mars/koks to 1

    @property
    def loser(self) -> int:
        return other(self.winner)


@dataclass(frozen=True, slots=True)
class CubeOffer:
    """A pending double: ``value`` is the cube if taken.  After a beaver the
    doubler answers; either way the side that did not double owns a taken cube."""

    doubler: int
    value: int
    beaver: bool = False

    @property
    def responder(self) -> int:
        return self.doubler if self.beaver else other(self.doubler)


@dataclass(frozen=True, slots=True)
class Resignation:
    side: int
    level: str
    multiplier: int
    resume: Phase  # where play continues if it is rejected


@dataclass(frozen=True, slots=True)
class GameState:
    rules: GameRules
    position: Position
    phase: Phase
    turn: int | None = None  # the side on roll; None before the opening
    cube: int = 1
    cube_owner: int | None = None  # None: centred
    dice: tuple[int, ...] = ()
    first_turn: tuple[bool, bool] = (True, True)  # the side has not played yet
    turn_number: int = 0  # turns completed
    starter: int | None = None
    offer: CubeOffer | None = None
    resignation: Resignation | None = None
    result: GameResult | None = None
    crawford: bool = False
    match_context: MatchContext | None = None
    automatic_doubles: int = 0  # taken so far in this game
    cube_turned: bool = False  # a double was taken (Jacoby)
    # The deciding opening throw: (side 0's die, side 1's), the players' seats.
    opening_dice: tuple[int, ...] = ()
    # ``higher_plays_white``: the seat (0 first player, 1 second) the opening
    # made White, which starts; None where seat 0 plays White.
    white_player: int | None = None

    @property
    def variant(self) -> Variant:
        return self.rules.variant

    @property
    def in_match(self) -> bool:
        return self.match_context is not None

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def to_act(self) -> int | None:
        """The side that must act now (None before the opening and after the end)."""
        if self.phase in (Phase.ROLL, Phase.PLAY):
            return self.turn
        if self.phase is Phase.TAKE and self.offer is not None:
            return self.offer.responder
        if self.phase is Phase.RESIGN and self.resignation is not None:
            return other(self.resignation.side)
        return None


def _error(code: str, reason: str, **data: object) -> GameStateError:
    return GameStateError(code, reason, **data)


def _expect(state: GameState, *phases: Phase) -> None:
    if state.phase not in phases:
        raise _error(
            "wrong_phase",
            f"not allowed now: the game is in phase {state.phase.value!r}, "
            f"this needs {' or '.join(repr(p.value) for p in phases)}",
            phase=state.phase.value,
            expected=[p.value for p in phases],
        )


def _on_turn(state: GameState) -> int:
    if state.turn is None:  # every phase past the opening has a side on turn
        raise _error("wrong_phase", "nobody is on turn before the opening")
    return state.turn


def _check_dice(variant: Variant, dice: Sequence[int]) -> tuple[int, ...]:
    values = tuple(dice)
    if len(values) != variant.dice or not all(
        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in values
    ):
        raise _error(
            "invalid_dice",
            f"{variant.name} needs {variant.dice} dice of 1..6, got {list(values)}",
            dice=list(values),
            expected=variant.dice,
        )
    return values


def new_game(
    rules: GameRules,
    *,
    crawford: bool = False,
    match_context: MatchContext | None = None,
    position: Position | None = None,
) -> GameState:
    """A game before the opening roll, from the variant's start or ``position``."""
    if match_context is not None and rules.money_options:
        raise _error(
            "money_option_in_match",
            "beaver, Jacoby and automatic doubles do not apply in a match",
        )
    if crawford and not rules.cube_enabled:
        raise _error("crawford_without_cube", "a Crawford game needs a variant with the cube")
    start = position if position is not None else start_position(rules)
    if rules.variant.checker_classes:
        bridge.soldiers_of(start)  # a position without classes cannot be played
    for side in (0, 1):
        if start.checkers(side) != rules.variant.checkers:
            raise _error(
                "bad_position",
                f"side {side} has {start.checkers(side)} checkers, "
                f"{rules.variant.name} has {rules.variant.checkers}",
                side=side,
            )
    return GameState(
        rules=rules,
        position=start,
        phase=Phase.OPENING,
        crawford=crawford,
        match_context=match_context,
    )


def start_position(rules: GameRules) -> Position:
    """The variant's start under the game's options (Soldiers: the army where
    its placement puts it)."""
    if rules.variant.checker_classes:
        return bridge.start_position(rules.options)
    return rules.variant.start_position()


def _start(
    state: GameState, starter: int, dice: tuple[int, ...], opening: tuple[int, ...]
) -> GameState:
    phase = Phase.PLAY if dice else Phase.ROLL
    return dataclasses.replace(
        state, phase=phase, turn=starter, starter=starter, dice=dice, opening_dice=opening
    )


def plays_opening_dice(variant: Variant) -> bool:
    """True when the starter's first roll is the two opening dice themselves.

    With more than two dice a turn (Garanquet) the opening dice are not a
    whole roll, so they only choose the starter, who rolls anew (RULES is
    silent; documented decision).
    """
    return (
        variant.opening in (Opening.USE_OPENING_DICE, Opening.HIGHER_PLAYS_WHITE)
        and variant.dice == 2
        and not variant.mover_names_dice
    )


def colours_by_opening(variant: Variant) -> bool:
    """Whether the opening throw names the colours (the higher thrower plays
    White, ``higher_plays_white``) rather than the seats."""
    return variant.opening is Opening.HIGHER_PLAYS_WHITE


def white_seat(state: GameState) -> int | None:
    """The side that plays White: side 0, unless the opening names the
    colours, then the opening's winner (None before it is thrown)."""
    if state.white_player is not None:
        return state.white_player
    return None if colours_by_opening(state.variant) else WHITE


def opening_roll(state: GameState, dice_source: DiceSource) -> GameState:
    """One die each, ties re-rolled (doubling the stake when automatic doubles
    are on, up to their maximum); the higher side starts (RULES §2, §4, §5)."""
    _expect(state, Phase.OPENING)
    cube = state.cube
    doubles = state.automatic_doubles
    while True:
        first, second = dice_source.opening()
        _check_dice_values((first, second))
        if first != second:
            break
        if not state.in_match and doubles < state.rules.automatic_doubles:
            cube *= 2
            doubles += 1
    state = dataclasses.replace(state, cube=cube, automatic_doubles=doubles)
    return _opened(state, first, second, dice_source)


def opening_throw(state: GameState, first: int, second: int) -> GameState:
    """The deciding opening throw as recorded (the first seat's die, the
    second's): the higher side starts, as after `opening_roll`.  Equal dice
    are refused (they are rolled again at the board); where the starter
    rolls anew, the game waits for that roll."""
    _expect(state, Phase.OPENING)
    _check_dice_values((first, second))
    if first == second:
        raise _error(
            "opening_tie",
            "equal opening dice are rolled again: record the deciding roll",
            dice=[first, second],
        )
    return _opened(state, first, second, None)


def _opened(state: GameState, first: int, second: int, dice_source: DiceSource | None) -> GameState:
    """Start after the deciding throw ``first`` (seat 0) and ``second`` (seat 1),
    unequal; ``dice_source`` rolls the starter's dice where the opening dice
    are not played (None: the game waits for that roll)."""
    variant = state.variant
    starter = WHITE if first > second else BLACK
    if colours_by_opening(variant):
        # The throw names the colours: the higher thrower plays White.
        state = dataclasses.replace(state, white_player=starter)
    throw = (first, second)
    if variant.mover_names_dice:
        return _start(state, starter, (), throw)
    if plays_opening_dice(variant):
        return _start(state, starter, (max(throw), min(throw)), throw)
    if dice_source is None:
        return _start(state, starter, (), throw)
    rolled = _check_dice(variant, dice_source.roll(variant.dice))
    return _start(state, starter, rolled, throw)


def _check_dice_values(values: tuple[int, ...]) -> None:
    if not all(isinstance(d, int) and 1 <= d <= 6 for d in values):
        raise _error("invalid_dice", f"{list(values)} are not die values 1..6", dice=list(values))


def set_opening(state: GameState, starter: int, dice: Sequence[int] | None = None) -> GameState:
    """Start with a known first mover (a record, or sides agreed without a roll).

    ``dice`` are the starter's first dice.  Where the opening dice are used
    they must differ (ties were re-rolled); where the starter re-rolls or
    names the dice, ``dice`` may be left out and the game waits for them.
    Where the opening makes the higher thrower White (Nauka), the starter is
    that thrower, so its seat is White.
    """
    _expect(state, Phase.OPENING)
    if starter not in (0, 1):
        raise _error("bad_side", f"side {starter} is neither 0 (white) nor 1 (black)")
    variant = state.variant
    if colours_by_opening(variant):
        state = dataclasses.replace(state, white_player=starter)
    opening_dice = plays_opening_dice(variant)
    if dice is None:
        if opening_dice:
            raise _error(
                "opening_dice_required",
                f"in {variant.name} the starter plays the opening dice: give them",
            )
        return _start(state, starter, (), ())
    values = _check_dice(variant, dice)
    if opening_dice and len(set(values)) < len(values):
        raise _error(
            "opening_double",
            f"in {variant.name} the first move uses the opening dice, which cannot be equal",
            dice=list(values),
        )
    return _start(state, starter, values, ())


def roll(state: GameState, dice_source: DiceSource) -> GameState:
    _expect(state, Phase.ROLL)
    if state.variant.mover_names_dice:
        raise _error(
            "dice_named_by_mover",
            f"nobody rolls in {state.variant.name}: the mover names the dice (set_dice)",
        )
    dice = _check_dice(state.variant, dice_source.roll(state.variant.dice))
    return dataclasses.replace(state, phase=Phase.PLAY, dice=dice)


def set_dice(state: GameState, dice: Sequence[int]) -> GameState:
    """The mover names the dice: only in variants that say so (dice-less long nardy)."""
    _expect(state, Phase.ROLL)
    if not state.variant.mover_names_dice:
        raise _error(
            "dice_not_nameable",
            f"in {state.variant.name} the dice are rolled, not named by the mover",
        )
    values = _check_dice(state.variant, dice)
    return dataclasses.replace(state, phase=Phase.PLAY, dice=values)


def no_roll_playable(
    variant: Variant, position: Position, side: int, *, first_turn: bool = False
) -> bool:
    """True when no roll at all lets ``side`` move (e.g. closed out on the bar).

    A roll can be played only if one of its dice can be played as the first
    step, and that step is also the first step of the doublet of that die, so
    the six doublets decide for all rolls.
    """
    for die in range(1, 7):
        plays = movegen.legal_plays(
            variant, position, side, (die,) * variant.dice, first_turn=first_turn
        )
        if any(p.steps for p in plays):
            return False
    return True


def skip_turn(state: GameState) -> GameState:
    """End a turn without dice because no roll could be played."""
    _expect(state, Phase.ROLL)
    side = _on_turn(state)
    if not no_roll_playable(state.variant, state.position, side, first_turn=state.first_turn[side]):
        raise _error(
            "turn_playable",
            "a turn may be passed without a roll only when no roll could be played",
        )
    return _next_turn(state, side, state.position)


def _double_refusal(state: GameState) -> GameStateError | None:
    if state.phase is Phase.PLAY:
        return _error("already_rolled", "a double is offered before rolling, not after")
    if state.phase is not Phase.ROLL:
        return _error(
            "wrong_phase", f"no double in phase {state.phase.value!r}", phase=state.phase.value
        )
    if not state.rules.cube_enabled:
        return _error("no_cube", f"{state.variant.name} is played without the doubling cube")
    if state.crawford:
        return _error("crawford_game", "nobody may double in the Crawford game")
    if state.turn_number == 0:
        return _error("opening_turn", "nobody may double before the first move")
    if state.cube_owner is not None and state.cube_owner != state.turn:
        return _error("cube_not_owned", "only the cube's owner may redouble")
    return None


def double(state: GameState) -> GameState:
    refusal = _double_refusal(state)
    if refusal is not None:
        raise refusal
    side = _on_turn(state)
    return dataclasses.replace(
        state, phase=Phase.TAKE, offer=CubeOffer(doubler=side, value=state.cube * 2)
    )


def _pending(state: GameState) -> CubeOffer:
    _expect(state, Phase.TAKE)
    if state.offer is None:  # the TAKE phase always carries its offer
        raise _error("wrong_phase", "no double is pending")
    return state.offer


def take(state: GameState) -> GameState:
    offer = _pending(state)
    return dataclasses.replace(
        state,
        phase=Phase.ROLL,
        offer=None,
        cube=offer.value,
        cube_owner=other(offer.doubler),
        cube_turned=True,
    )


def pass_(state: GameState) -> GameState:
    """Refuse the pending double (or beaver): the other side wins the stake before it."""
    offer = _pending(state)
    stake = offer.value // 2
    winner = other(offer.responder)
    return _finish(state, GameResult(winner, "pass", 1, stake, stake, END_PASS))


def beaver(state: GameState) -> GameState:
    offer = _pending(state)
    if not state.rules.beaver or state.in_match:
        raise _error("beaver_not_allowed", "beavers are not played under these rules")
    if offer.beaver:
        raise _error("already_beavered", "a beaver cannot itself be beavered")
    return dataclasses.replace(
        state, offer=CubeOffer(doubler=offer.doubler, value=offer.value * 2, beaver=True)
    )


def bomb_owner(position: Position) -> int | None:
    """The side that alone may set off the nuclear bomb; None while nobody owns it."""
    value = position.get("bomb")
    return value if isinstance(value, int) and value in (WHITE, BLACK) else None


def _explode_refusal(state: GameState) -> GameStateError | None:
    if not state.variant.nuclear:
        return _error("no_bomb", f"{state.variant.name} is played without the bomb")
    if state.phase is Phase.PLAY:
        return _error("already_rolled", "the bomb is set off before rolling, not after")
    if state.phase is not Phase.ROLL:
        return _error(
            "wrong_phase", f"no explosion in phase {state.phase.value!r}", phase=state.phase.value
        )
    if state.turn_number == 0:
        return _error("opening_turn", "nobody may set off the bomb before the first move")
    owner = bomb_owner(state.position)
    if owner is not None and owner != state.turn:
        return _error("bomb_not_yours", "only the side the bomb passed to may set it off")
    return None


def can_explode(state: GameState) -> bool:
    return _explode_refusal(state) is None


def explode(state: GameState) -> GameState:
    """Nuclear: every blot of both sides goes to the bar and the bomb passes
    to the opponent; the side on turn then rolls as usual."""
    refusal = _explode_refusal(state)
    if refusal is not None:
        raise refusal
    side = _on_turn(state)
    return dataclasses.replace(state, position=movegen.explode(state.variant, state.position, side))


def legal_plays(state: GameState) -> list[Play]:
    """Every distinct play for the dice on the table."""
    _expect(state, Phase.PLAY)
    side = _on_turn(state)
    return movegen.legal_plays(
        state.variant, state.position, side, state.dice, first_turn=state.first_turn[side]
    )


def play(state: GameState, moves: Sequence[Move]) -> GameState:
    """Play the turn written as ``moves`` (empty when nothing can be played)."""
    _expect(state, Phase.PLAY)
    side = _on_turn(state)
    try:
        found = movegen.find_play(
            state.variant,
            state.position,
            side,
            state.dice,
            moves,
            first_turn=state.first_turn[side],
        )
    except IllegalPlay as error:
        # The caller needs to know which turn was refused (1-based, this one).
        error.data.setdefault("turn", state.turn_number + 1)
        error.data.setdefault("side", side)
        raise
    return _apply(state, side, found)


def choose_play(state: GameState, chosen: Play) -> GameState:
    """Play one of ``legal_plays(state)`` (matched by its resulting position)."""
    if not any(p.position == chosen.position for p in legal_plays(state)):
        raise IllegalPlay("not_a_legal_play", "that play is not one of the legal plays")
    return _apply(state, _on_turn(state), chosen)


def apply_legal_play(state: GameState, chosen: Play) -> GameState:
    """Play ``chosen``, which the caller took from the legal plays of this very
    state (an importer that already generated them); it is not checked again."""
    _expect(state, Phase.PLAY)
    return _apply(state, _on_turn(state), chosen)


def _apply(state: GameState, side: int, chosen: Play) -> GameState:
    position = chosen.position
    variant = state.variant
    end: str | None = None
    if variant.first_hit_wins and any(step.hit for step in chosen.steps):
        end = END_HIT
    elif variant.pinning and CONDITIONS["mother_pinned"](variant, position, other(side)):
        end = END_MOTHER_PINNED
    elif position.side(side)[OFF] == variant.checkers:
        end = END_BEAROFF
    if end is None:
        return _next_turn(state, side, position)
    name, multiplier = score(state.rules.preset, variant, position, other(side))
    multiplier, jacoby = _jacoby(state, multiplier)
    ended = dataclasses.replace(state, position=position, turn_number=state.turn_number + 1)
    return _finish(
        ended,
        GameResult(side, name, multiplier, state.cube, state.cube * multiplier, end, jacoby),
    )


def _next_turn(state: GameState, side: int, position: Position) -> GameState:
    first = (False, state.first_turn[1]) if side == 0 else (state.first_turn[0], False)
    return dataclasses.replace(
        state,
        position=position,
        phase=Phase.ROLL,
        turn=other(side),
        dice=(),
        first_turn=first,
        turn_number=state.turn_number + 1,
    )


def _jacoby(state: GameState, multiplier: int) -> tuple[int, bool]:
    if multiplier > 1 and state.rules.jacoby and not state.in_match and not state.cube_turned:
        return 1, True
    return multiplier, False


def _finish(state: GameState, result: GameResult) -> GameState:
    return dataclasses.replace(
        state, phase=Phase.FINISHED, offer=None, resignation=None, dice=(), result=result
    )


def resign(state: GameState, level: str = "single", side: int | None = None) -> GameState:
    """Offer to lose at ``level``: one of the preset's result names ("single", "mars", ...)."""
    _expect(state, Phase.ROLL, Phase.PLAY)
    resigner = _on_turn(state) if side is None else side
    if resigner not in (0, 1):
        raise _error("bad_side", f"side {resigner} is neither 0 (white) nor 1 (black)")
    multiplier = state.rules.preset.multiplier_of(level)
    if multiplier is None:
        raise _error(
            "unknown_resignation_level",
            f"{level!r} is not a result of scoring preset {state.rules.preset.name!r}; "
            f"choose one of {', '.join(state.rules.preset.result_names())}",
            level=level,
            levels=list(state.rules.preset.result_names()),
        )
    return dataclasses.replace(
        state,
        phase=Phase.RESIGN,
        resignation=Resignation(resigner, level, multiplier, state.phase),
    )


def _offered(state: GameState) -> Resignation:
    _expect(state, Phase.RESIGN)
    if state.resignation is None:  # the RESIGN phase always carries its offer
        raise _error("wrong_phase", "no resignation is pending")
    return state.resignation


def accept_resignation(state: GameState) -> GameState:
    offered = _offered(state)
    multiplier, jacoby = _jacoby(state, offered.multiplier)
    return _finish(
        state,
        GameResult(
            other(offered.side),
            offered.level,
            multiplier,
            state.cube,
            state.cube * multiplier,
            END_RESIGN,
            jacoby,
        ),
    )


def reject_resignation(state: GameState) -> GameState:
    offered = _offered(state)
    return dataclasses.replace(state, phase=offered.resume, resignation=None)


def can_double(state: GameState) -> bool:
    return _double_refusal(state) is None


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """What may be done now (by ``state.to_act``)."""
    phase = state.phase
    variant = state.variant
    if phase is Phase.OPENING:
        return (Action.OPENING_ROLL, Action.SET_OPENING)
    if phase is Phase.ROLL:
        side = _on_turn(state)
        actions = [Action.SET_DICE if variant.mover_names_dice else Action.ROLL]
        if no_roll_playable(variant, state.position, side, first_turn=state.first_turn[side]):
            actions.append(Action.SKIP_TURN)
        if can_double(state):
            actions.append(Action.DOUBLE)
        if can_explode(state):
            actions.append(Action.EXPLODE)
        actions.append(Action.RESIGN)
        return tuple(actions)
    if phase is Phase.TAKE:
        offer = _pending(state)
        actions = [Action.TAKE, Action.PASS]
        if state.rules.beaver and not state.in_match and not offer.beaver:
            actions.append(Action.BEAVER)
        return tuple(actions)
    if phase is Phase.PLAY:
        return (Action.PLAY, Action.RESIGN)
    if phase is Phase.RESIGN:
        return (Action.ACCEPT_RESIGNATION, Action.REJECT_RESIGNATION)
    return ()
