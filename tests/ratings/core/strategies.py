"""Hypothesis strategies: random rated histories and late corrections to them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from ratings.core import PlayerState, RatedMatch

BASE = datetime(2024, 1, 1, 18, 0, tzinfo=UTC)
LENGTHS = [1, 3, 5, 7, 9, 11, 13, 17, 25]
DAYS_PER_PERIOD = 4


def make_match(match_id: int, day: int, winner: int, loser: int, length: int) -> RatedMatch:
    """A match on ``day`` (several per day share a time: the id breaks the tie)."""
    return RatedMatch(
        match_id=match_id,
        played_at=BASE + timedelta(days=day),
        winner=winner,
        loser=loser,
        length=length,
        period=day // DAYS_PER_PERIOD,
    )


def ordered(matches: list[RatedMatch]) -> list[RatedMatch]:
    return sorted(matches, key=lambda m: m.key)


@st.composite
def pairings(draw: st.DrawFn, players: int) -> tuple[int, int]:
    winner = draw(st.integers(1, players))
    loser = draw(st.integers(1, players - 1))
    return winner, loser + 1 if loser >= winner else loser


@st.composite
def histories(draw: st.DrawFn, max_matches: int = 40) -> tuple[int, list[RatedMatch]]:
    players = draw(st.integers(2, 7))
    count = draw(st.integers(0, max_matches))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=count, max_size=count, unique=True))
    matches = []
    for match_id in ids:
        winner, loser = draw(pairings(players))
        day = draw(st.integers(0, 60))
        matches.append(make_match(match_id, day, winner, loser, draw(st.sampled_from(LENGTHS))))
    return players, ordered(matches)


@dataclass(frozen=True)
class Correction:
    new_history: list[RatedMatch]
    first_key: tuple[datetime, int]  # the earliest (played_at, match id) changed
    first_period: int


@st.composite
def corrections(draw: st.DrawFn, players: int, history: list[RatedMatch]) -> Correction:
    """1-3 late results, changed results or removed results, anywhere in the past."""
    matches = list(history)
    touched: list[RatedMatch] = []
    used_ids = {m.match_id for m in matches}
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["insert"] + (["modify", "delete"] if matches else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "insert":
            match_id = draw(st.integers(1, 20_000).filter(lambda i: i not in used_ids))
            used_ids.add(match_id)
            winner, loser = draw(pairings(players))
            late = make_match(
                match_id,
                draw(st.integers(0, 60)),
                winner,
                loser,
                draw(st.sampled_from(LENGTHS)),
            )
            matches.append(late)
            touched.append(late)
        else:
            index = draw(st.integers(0, len(matches) - 1))
            old = matches[index]
            touched.append(old)
            if kind == "delete":
                del matches[index]
            else:
                swap = draw(st.booleans())
                matches[index] = old._replace(
                    winner=old.loser if swap else old.winner,
                    loser=old.winner if swap else old.loser,
                    length=draw(st.sampled_from(LENGTHS)),
                )
    first = min(touched, key=lambda m: m.key)
    assert first.period is not None
    return Correction(
        ordered(matches), first.key, min(m.period for m in touched if m.period is not None)
    )


@st.composite
def fibs_seeds(draw: st.DrawFn, players: int) -> dict[int, PlayerState]:
    seeded = draw(st.lists(st.integers(1, players), unique=True, max_size=2))
    return {
        player: PlayerState(
            rating=draw(st.floats(1000, 2200)),
            experience=draw(st.integers(0, 900)),
            matches=draw(st.integers(0, 50)),
        )
        for player in seeded
    }


@st.composite
def glicko2_seeds(draw: st.DrawFn, players: int) -> dict[int, PlayerState]:
    seeded = draw(st.lists(st.integers(1, players), unique=True, max_size=2))
    return {
        player: PlayerState(
            rating=draw(st.floats(1000, 2200)),
            rd=draw(st.floats(30, 350)),
            volatility=draw(st.floats(0.03, 0.09)),
            matches=draw(st.integers(0, 50)),
        )
        for player in seeded
    }
