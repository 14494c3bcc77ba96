"""A deliberately simple Soldiers move generator, written from RULES.md §3.1
alone, to check the engine's fast one.

Every checker is an explicit object with an identity; every die order and
every checker is tried one by one (no packing, no dedup of equal checkers
beyond a memo of whole states).  Only the position text (to compare
results) is shared with the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.soldiers.state import SoldiersPosition, parse_position

K, G, D, EVEN, ODD, P = range(6)
LETTERS = "KGDEOP"


@dataclass(frozen=True)
class Checker:
    id: int
    side: int
    cls: int
    loc: int  # own numbering: 0 off, 1..24, 25 bar
    pinned: bool = False

    def abs(self) -> int | None:
        """Absolute location 1..24 in white's numbering (None: bar or off)."""
        if not 1 <= self.loc <= 24:
            return None
        return self.loc if self.side == 0 else 25 - self.loc


@dataclass(frozen=True)
class Turn:
    checkers: tuple[Checker, ...]
    general_start: tuple[tuple[int, int], ...]  # (id, loc at turn start)
    general_hit: frozenset[int]
    waiting: frozenset[int]  # first attackers on a lone guard


def from_text(text: str) -> tuple[list[Checker], int]:
    """Checkers of a position text, and the side to move (the text parsed by
    the engine's reader only to share its syntax; classes and pins come back
    through the canonical text's tokens)."""
    position = parse_position(text)
    checkers: list[Checker] = []
    for side, half in enumerate(position.text().split("|")[:2]):
        for token in half.split(":", 1)[1].split():
            cls = LETTERS.index(token[0])
            rest = token[1:]
            n = 1
            if "x" in rest:
                rest, count = rest.split("x")
                n = int(count)
            pinned = rest.endswith("!")
            where = rest.rstrip("!")
            loc = 25 if where == "bar" else 0 if where == "off" else int(where)
            for _ in range(n):
                checkers.append(Checker(len(checkers), side, cls, loc, pinned))
    return checkers, position.turn


def to_text(checkers: tuple[Checker, ...], turn: int) -> str:
    halves = []
    for side in (0, 1):
        tokens = []
        for c in checkers:
            if c.side == side:
                where = "bar" if c.loc == 25 else "off" if c.loc == 0 else str(c.loc)
                tokens.append(f"{LETTERS[c.cls]}{where}{'!' if c.pinned else ''}")
        halves.append(f"{'WB'[side]}: {' '.join(tokens)}")
    # the engine's reader sorts and counts them: its canonical text is the key
    return parse_position(f"{halves[0]} | {halves[1]} | {'WB'[turn]}").text()


def _at(checkers: tuple[Checker, ...], absolute: int) -> list[Checker]:
    return [c for c in checkers if c.abs() == absolute]


def _abs_of(side: int, q: int) -> int:
    return q if side == 0 else 25 - q


def _set(checkers: tuple[Checker, ...], changed: Checker) -> tuple[Checker, ...]:
    return tuple(changed if c.id == changed.id else c for c in checkers)


def _step(t: Turn, mover: Checker, die: int) -> list[tuple[Turn, bool]]:
    """Every way ``mover`` can use ``die``: (turn after, whether it hit)."""
    side = mover.side
    mine = [c for c in t.checkers if c.side == side]
    if mover.pinned or mover.id in t.waiting or mover.loc == 0:
        return []
    if mover.cls == EVEN and die % 2:
        return []
    if mover.cls == ODD and die % 2 == 0:
        return []
    on_bar = any(c.loc == 25 for c in mine)
    if on_bar and mover.loc != 25:
        return []
    targets = [mover.loc - die if mover.loc != 25 else 25 - die]
    if mover.cls == K and mover.loc != 25 and not on_bar and mover.loc + die <= 24:
        targets.append(mover.loc + die)
    out = []
    for dest in targets:
        if dest <= 0:
            if any(c.loc > 6 for c in mine if not c.pinned):
                continue
            if dest < 0 and any(c.loc > mover.loc for c in mine):
                continue
            moved = _leave(t, mover, replace(mover, loc=0))
            out.append((moved, False))
            continue
        landed = _land(t, mover, dest)
        if landed is not None:
            out.append(landed)
    return out


def _leave(t: Turn, mover: Checker, moved: Checker) -> Turn:
    """Move ``mover`` to ``moved``; pins its old point held end with it."""
    checkers = _set(t.checkers, moved)
    old = mover.abs()
    if old is not None and not any(c.side == mover.side for c in _at(checkers, old)):
        checkers = tuple(
            replace(c, pinned=False) if c.abs() == old and c.pinned else c for c in checkers
        )
    return replace(t, checkers=checkers)


def _land(t: Turn, mover: Checker, dest: int) -> tuple[Turn, bool] | None:
    absolute = _abs_of(mover.side, dest)
    here = _at(t.checkers, absolute)
    theirs = [c for c in here if c.side != mover.side and not c.pinned]
    mine_free = [c for c in here if c.side == mover.side and not c.pinned]
    mine_pinned = [c for c in here if c.side == mover.side and c.pinned]
    if len(theirs) >= 2:
        return None
    t = _leave(t, mover, replace(mover, loc=dest))
    if not theirs:
        return t, False
    (x,) = theirs
    if x.cls == G:
        if mover.cls == D:
            return None
        if not mine_free:
            return replace(t, waiting=t.waiting | {mover.id}), False
        checkers = _set(t.checkers, replace(x, loc=25))
        checkers = tuple(replace(c, pinned=False) if c in mine_pinned else c for c in checkers)
        return replace(t, checkers=checkers, waiting=t.waiting - {c.id for c in mine_free}), True
    if mover.cls == D:
        if mine_pinned:
            return None
        return replace(t, checkers=_set(t.checkers, replace(x, pinned=True))), False
    checkers = _set(t.checkers, replace(x, loc=25))
    checkers = tuple(replace(c, pinned=False) if c in mine_pinned else c for c in checkers)
    return replace(t, checkers=checkers), True


def reference_plays(text: str, dice: tuple[int, int]) -> set[str]:
    """The canonical texts of every legal play's resulting position."""
    checkers, side = from_text(text)
    start = Turn(
        tuple(checkers),
        tuple((c.id, c.loc) for c in checkers if c.side == side and c.cls == K),
        frozenset(),
        frozenset(),
    )
    moves = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    n_all = len(moves)
    found: dict[str, tuple[int, int]] = {}
    seen: set[tuple[Turn, tuple[int, ...]]] = set()

    def valid(t: Turn) -> bool:
        if t.waiting:
            return False
        locs = {c.id: c.loc for c in t.checkers}
        return all(
            locs[gid] <= start_loc or gid in t.general_hit for gid, start_loc in t.general_start
        )

    def visit(t: Turn, remaining: tuple[int, ...], used: int, pips: int) -> None:
        if (t, remaining) in seen:
            return
        seen.add((t, remaining))
        finished = all(c.loc == 0 for c in t.checkers if c.side == side)
        if valid(t):
            score = (n_all, sum(moves)) if finished else (used, pips)
            key = to_text(t.checkers, 1 - side)
            if key not in found or found[key] < score:
                found[key] = score
        if finished:
            return
        for die in set(remaining):
            rest = list(remaining)
            rest.remove(die)
            for mover in t.checkers:
                if mover.side != side:
                    continue
                for nxt, hit in _step(t, mover, die):
                    if hit and mover.cls == K:
                        nxt = replace(nxt, general_hit=nxt.general_hit | {mover.id})
                    visit(nxt, tuple(sorted(rest)), used + 1, pips + die)

    visit(start, tuple(sorted(moves)), 0, 0)
    best = max(found.values())
    return {key for key, score in found.items() if score == best}


def engine_text(position: SoldiersPosition) -> str:
    return position.text()
