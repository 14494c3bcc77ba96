"""What a table shows beside the ranking: match counts, bracket places, a result's reach."""

from __future__ import annotations

from collections import Counter

from tests.tournaments.core.helpers import entries
from tournaments.core.double_elim import double_elimination
from tournaments.core.elimination import single_elimination
from tournaments.core.tables import BracketPlace, bracket_places, result_counts
from tournaments.core.types import MatchResult


def test_counts_of_wins_losses_byes_and_forfeits() -> None:
    results = [
        MatchResult(1, 1, 2, 1, 7, 3),
        MatchResult.bye_for(1, 3),
        MatchResult.forfeit_win(2, 3, 1),
        MatchResult(2, 2, 4, None, forfeit=True),  # both forfeited: a loss for each
    ]
    assert result_counts(results, bye_is_win=True) == {
        1: Counter(wins=1, losses=1, forfeits=1),
        2: Counter(losses=2, forfeits=1),
        3: Counter(byes=1, wins=2, forfeits=1),
        4: Counter(losses=1, forfeits=1),
    }
    assert result_counts(results, bye_is_win=False)[3] == Counter(byes=1, wins=1, forfeits=1)


def test_bracket_places_champion_still_running_then_eliminated() -> None:
    bracket = single_elimination(entries(8))
    # Quarter-finals: the better seed wins; one semi-final played (1 beats 4).
    for a, b in [(1, 8), (4, 5), (2, 7), (3, 6)]:
        bracket.apply(MatchResult(1, a, b, a))
    bracket.apply(MatchResult(2, 1, 4, 1))
    seeds = {k: k for k in range(1, 9)}
    assert bracket_places(bracket, seeds) == [
        # No champion yet: the players still in, by seed, then the losers by depth.
        BracketPlace("main", 1, "", 1),
        BracketPlace("main", 2, "", 1),
        BracketPlace("main", 3, "", 1),
        BracketPlace("main", 4, "4", 4),
        BracketPlace("main", 5, "5-8", 5),
        BracketPlace("main", 6, "5-8", 5),
        BracketPlace("main", 7, "5-8", 5),
        BracketPlace("main", 8, "5-8", 5),
    ]
    bracket.apply(MatchResult(2, 2, 3, 3))
    bracket.apply(MatchResult(3, 1, 3, 3))
    top = [(p.entry, p.place, p.rank) for p in bracket_places(bracket, seeds)[:4]]
    assert top == [(3, "1", 1), (1, "2", 2), (2, "3-4", 3), (4, "3-4", 3)]


def test_a_result_reaches_every_later_match_and_the_reset() -> None:
    bracket = double_elimination(entries(4))
    final_of_winners = max(
        (m for m in bracket.matches.values() if m.section == "W"), key=lambda m: m.round
    )
    assert bracket.downstream(final_of_winners.id) >= {"GF1", "GF2"}
    assert bracket.downstream("GF1") == {"GF2"}
    assert bracket.downstream("GF2") == set()
