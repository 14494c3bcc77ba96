"""Standings and tie-breaks against hand computations."""

from __future__ import annotations

import pytest

from tournaments.core.errors import ConfigError
from tournaments.core.standings import StandingsSettings, compute_standings
from tournaments.core.types import Entry, MatchResult

A, B, C, D, E, F = 1, 2, 3, 4, 5, 6
SIX = [
    Entry(A, seed=1, rating=2000),
    Entry(B, seed=2, rating=1900),
    Entry(C, seed=3, rating=1800),
    Entry(D, seed=4, rating=1700),
    Entry(E, seed=5, rating=1600),
    Entry(F, seed=6, rating=1500, withdrawn=True),
]

# A 6-player, 3-round Swiss with a bye, a forfeit and a withdrawal:
#   round 1: A-D 7-3, B-E 7-5, F-C 7-6
#   round 2: B-A 7-2, C wins against D by forfeit, E has the bye, F withdrew
#   round 3: B-C 7-4, A-E 7-0, D has the bye, F absent
SIX_RESULTS = [
    MatchResult(1, A, D, A, 7, 3, error_rate_a=4.5, error_rate_b=9.1),
    MatchResult(1, B, E, B, 7, 5, error_rate_a=3.0),
    MatchResult(1, C, F, F, 6, 7, error_rate_a=7.0, error_rate_b=5.0),
    MatchResult(2, A, B, B, 2, 7, error_rate_a=6.5, error_rate_b=5.0),
    MatchResult.forfeit_win(2, C, D),
    MatchResult.bye_for(2, E),
    MatchResult(3, B, C, B, 7, 4, error_rate_a=4.0, error_rate_b=8.0),
    MatchResult(3, A, E, A, 7, 0, error_rate_a=2.0, error_rate_b=12.0),
    MatchResult.bye_for(3, D),
]
ALL = ("BH-C1", "BH", "BH-M1", "SB", "PS", "KS", "PD", "PW", "ARO", "PR", "WIN", "WON")

# Scores (a bye is a win): A 2 (W L W), B 3, C 1 (L, forfeit W, L), D 1 (L,
# forfeit L, bye), E 1 (L, bye, L), F 1 (W, absent, absent).
#
# Opponent values per round: a played round counts the opponent's final
# score; an unplayed one (bye, forfeit won or lost, absence) a dummy on the
# player's own score.  "v" marks a voluntarily unplayed round (forfeit loss,
# absence): cut first.  KS counts wins against values >= 1.5 (3 rounds).
#
# A: D 1, B 3, E 1           BH 5, C1 5-1 = 4, M1 4-3 = 1; SB (won vs D, E) 1+1 = 2
#    PS 1+1+2 = 4; KS 0; PD (7-3)+(2-7)+(7-0) = 6; PW 16;
#    ARO (1700+1900+1600)/3 = 1733.3 -> 1733; PR (4.5+6.5+2.0)/3 = 4.333
# B: E 1, A 2, C 1           BH 4, C1 3, M1 3-2 = 1; SB 1+2+1 = 4; PS 1+2+3 = 6
#    KS 1 (A on 2); PD 2+5+3 = 10; PW 21; ARO (1600+2000+1800)/3 = 1800
#    PR (3.0+5.0+4.0)/3 = 4.0
# C: F 1, dummy 1, B 3       BH 5, C1 4, M1 1; SB (forfeit win: dummy 1) = 1
#    PS 0+1+1 = 2; KS 0; PD (6-7)+(4-7) = -4 (forfeit ignored); PW 10
#    ARO (1500+1900)/2 = 1700; PR (7.0+8.0)/2 = 7.5
# D: A 2, dummy 1 v, dummy 1 BH 4, C1 4-1 = 3 (the forfeit loss is cut),
#    M1 3-2 = 1; SB (bye: dummy 1) = 1; PS 0+0+1 = 1; KS 0; PD 3-7 = -4; PW 3
#    ARO 2000; PR 9.1
# E: B 3, dummy 1, A 2       BH 6, C1 5, M1 5-3 = 2; SB (bye) 1; PS 0+1+1 = 2
#    KS 0; PD (5-7)+(0-7) = -9; PW 5; ARO (1900+2000)/2 = 1950; PR 12.0 (one value)
# F: C 1, dummy 1 v, dummy 1 v  BH 3, C1 2, M1 2-1 = 1; SB (beat C on 1) 1
#    PS 1+1+1 = 3; KS 0; PD 7-6 = 1; PW 7; ARO 1800; PR 5.0
EXPECTED = {
    A: dict(score=2, BH=5, C1=4, M1=1, SB=2, PS=4, KS=0, PD=6, PW=16, ARO=1733, PR=13 / 3, WON=2),
    B: dict(score=3, BH=4, C1=3, M1=1, SB=4, PS=6, KS=1, PD=10, PW=21, ARO=1800, PR=4.0, WON=3),
    C: dict(score=1, BH=5, C1=4, M1=1, SB=1, PS=2, KS=0, PD=-4, PW=10, ARO=1700, PR=7.5, WON=0),
    D: dict(score=1, BH=4, C1=3, M1=1, SB=1, PS=1, KS=0, PD=-4, PW=3, ARO=2000, PR=9.1, WON=0),
    E: dict(score=1, BH=6, C1=5, M1=2, SB=1, PS=2, KS=0, PD=-9, PW=5, ARO=1950, PR=12.0, WON=0),
    F: dict(score=1, BH=3, C1=2, M1=1, SB=1, PS=3, KS=0, PD=1, PW=7, ARO=1800, PR=5.0, WON=1),
}


def test_every_tiebreak_value_of_the_worked_example() -> None:
    rows = compute_standings(SIX, SIX_RESULTS, StandingsSettings(tiebreaks=ALL, rounds=3))
    by_entry = {r.entry: r for r in rows}
    for pid, want in EXPECTED.items():
        got = by_entry[pid].tiebreaks
        assert by_entry[pid].score == want["score"] == got["WIN"]
        assert (got["BH"], got["BH-C1"], got["BH-M1"], got["SB"], got["PS"], got["KS"]) == (
            want["BH"], want["C1"], want["M1"], want["SB"], want["PS"], want["KS"],
        ), pid  # fmt: skip
        assert (got["PD"], got["PW"], got["ARO"], got["WON"]) == (
            want["PD"],
            want["PW"],
            want["ARO"],
            want["WON"],
        ), pid
        assert got["PR"] == pytest.approx(want["PR"]), pid


def test_places_of_the_worked_example() -> None:
    # On 1 point: BH-C1 E 5, C 4, D 3, F 2 - all different.
    rows = compute_standings(SIX, SIX_RESULTS, StandingsSettings(tiebreaks=("BH-C1", "BH", "SB")))
    assert [(r.place, r.entry) for r in rows] == [
        ("1", B),
        ("2", A),
        ("3", E),
        ("4", C),
        ("5", D),
        ("6", F),
    ]
    # By BH-M1 alone, C, D and F are tied on 1 (E has 2): they share 4-6, listed in seed order.
    rows = compute_standings(SIX, SIX_RESULTS, StandingsSettings(tiebreaks=("BH-M1",)))
    assert [(r.place, r.entry) for r in rows] == [
        ("1", B),
        ("2", A),
        ("3", E),
        ("4-6", C),
        ("4-6", D),
        ("4-6", F),
    ]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 4, 4]
    # PR: lower is better: F 5.0, C 7.5, D 9.1, E 12.0.
    rows = compute_standings(SIX, SIX_RESULTS, StandingsSettings(tiebreaks=("PR",)))
    assert [r.entry for r in rows][2:] == [F, C, D, E]


def test_bye_not_a_win() -> None:
    # D and E lose their bye point: D 0, E 0; C and F stay on 1.
    # D: A 2, dummy 0 v, dummy 0 -> BH 2; E: B 3, dummy 0, A 2 -> BH 5, SB 0.
    # A's opponents D and E are now on 0: BH 0+3+0 = 3, SB 0.
    rows = compute_standings(
        SIX, SIX_RESULTS, StandingsSettings(tiebreaks=("BH", "SB"), bye_is_win=False)
    )
    by_entry = {r.entry: r for r in rows}
    assert (by_entry[D].score, by_entry[E].score) == (0, 0)
    assert (
        by_entry[D].tiebreaks["BH"],
        by_entry[E].tiebreaks["BH"],
        by_entry[E].tiebreaks["SB"],
    ) == (2, 5, 0)
    assert (by_entry[A].tiebreaks["BH"], by_entry[A].tiebreaks["SB"]) == (3, 0)


def test_remaining_ties_broken_by_lot_are_reproducible() -> None:
    cfg = StandingsSettings(tiebreaks=("BH-M1",), lot_seed=2025)
    first = compute_standings(SIX, SIX_RESULTS, cfg)
    again = compute_standings(SIX, list(reversed(SIX_RESULTS)), cfg)
    assert first == again
    tail = first[3:]
    assert [r.place for r in tail] == ["4", "5", "6"]
    assert all(r.by_lot for r in tail)
    assert sorted(r.entry for r in tail) == [C, D, F]


def test_withdrawn_player_is_ranked_and_unplayed_rounds_count() -> None:
    rows = compute_standings(SIX, SIX_RESULTS, StandingsSettings(tiebreaks=("BH",)))
    assert {r.entry for r in rows} == {A, B, C, D, E, F}


def test_unknown_codes_and_entries_are_errors() -> None:
    with pytest.raises(ConfigError) as err:
        StandingsSettings(tiebreaks=("XX",))
    assert err.value.code == "unknown_tiebreak"
    with pytest.raises(ConfigError):
        StandingsSettings(tiebreaks=("BH", "BH"))
    with pytest.raises(ConfigError) as err:
        compute_standings(SIX, [*SIX_RESULTS, MatchResult(1, A, 99, A)])
    assert err.value.code == "unknown_entry"
    with pytest.raises(ConfigError):
        compute_standings(SIX, [*SIX_RESULTS, MatchResult(1, A, E, A)])  # A twice in round 1


# ---------------------------------------------------------------------------
# Direct encounter

P, Q, R, S, X, Y = 11, 12, 13, 14, 15, 16
DE_FIELD = [Entry(pid, seed=k) for k, pid in enumerate((X, Y, S, R, Q, P), start=1)]


def beat(rnd: int, w: int, loser: int) -> MatchResult:
    return MatchResult(rnd, w, loser, w, 5, 1)


# P, Q, R, S all finish on 2 wins.  Among them (all six met):
#   P beat Q and R, lost to S -> 2;  Q beat R and S -> 2;  R beat S -> 1;  S beat P -> 1.
# DE splits {P Q} (2) from {R S} (1); reapplied to {P Q}: P beat Q; to {R S}: R beat S.
# X beat P, lost to R; Y beat Q, lost to S: X and Y on 1, and never met each other.
DE_RESULTS = [
    beat(1, P, Q), beat(1, R, S),
    beat(2, P, R), beat(2, Q, S),
    beat(3, S, P), beat(3, Q, R),
    beat(4, X, P), beat(4, Y, Q),
    beat(5, R, X), beat(5, S, Y),
]  # fmt: skip


def test_direct_encounter_is_reapplied_to_still_tied_subsets() -> None:
    rows = compute_standings(DE_FIELD, DE_RESULTS, StandingsSettings(tiebreaks=("DE",)))
    top = [(r.place, r.entry, r.tiebreaks["DE"]) for r in rows[:4]]
    # The DE value shown is the points in the first mini-table (all four).
    assert top == [("1", P, 2), ("2", Q, 2), ("3", R, 1), ("4", S, 1)]
    # X and Y, tied on 1, never met: DE cannot separate them (0 points each).
    assert [(r.place, r.entry, r.score, r.tiebreaks["DE"]) for r in rows[4:]] == [
        ("5-6", X, 1, 0),
        ("5-6", Y, 1, 0),
    ]
    # Without DE the four share 1-4; with DE first then BH, the DE order stands.
    rows = compute_standings(DE_FIELD, DE_RESULTS, StandingsSettings(tiebreaks=("BH",)))
    assert rows[0].tiebreaks["BH"] is not None
    rows = compute_standings(DE_FIELD, DE_RESULTS, StandingsSettings(tiebreaks=("DE", "BH")))
    assert [r.entry for r in rows[:4]] == [P, Q, R, S]


def test_direct_encounter_excludes_forfeits() -> None:
    # A beat B, B beat C over the board; A "beat" C by forfeit.  Without the
    # forfeit the mini-table is incomplete (A and C never met): A 1, B 1, C 0,
    # nobody is out of reach, so DE leaves all three tied; BH then decides.
    field = [Entry(k, seed=k) for k in (1, 2, 3, 4, 5)]
    results = [
        beat(1, 1, 2), beat(1, 3, 4),
        beat(2, 2, 3), beat(2, 4, 1),
        MatchResult.forfeit_win(3, 1, 3), beat(3, 2, 5),
        beat(4, 3, 5),
    ]  # fmt: skip
    # Scores: 1, 2, 3 on 2; 4 on 1; 5 on 0.  Counting the forfeit, DE would
    # order 1 (2 pts), 2 (1), 3 (0); without it 1 and 2 have 1 point and 2 could
    # not be passed by 1 -> no split.
    rows = compute_standings(field, results, StandingsSettings(tiebreaks=("DE",)))
    assert [(r.place, r.entry, r.tiebreaks["DE"]) for r in rows[:3]] == [
        ("1-3", 1, 1),
        ("1-3", 2, 1),
        ("1-3", 3, 0),
    ]
    tied = [Entry(k, seed=k) for k in (1, 2, 3)]
    three = [
        beat(1, 1, 2),
        beat(2, 2, 3),
        MatchResult.forfeit_win(3, 1, 3),
        beat(4, 3, 1),
        beat(5, 2, 1),
        beat(6, 3, 2),
    ]
    # Scores: 1: 2 (2, forfeit 3), 2: 2 (3, 1), 3: 2 (1, 2).  Over the board:
    # 1-2 (1 won), 2-3 (2 won), 3-1 (3 won), 2-1 (2 won), 3-2 (3 won):
    # 1: 1 pt, 2: 2, 3: 2 and everyone met everyone -> 2 and 3 ahead of 1, then
    # {2, 3} reapplied: 1 win each -> still tied.
    rows = compute_standings(tied, three, StandingsSettings(tiebreaks=("DE",)))
    assert [(r.place, r.entry) for r in rows] == [("1-2", 2), ("1-2", 3), ("3", 1)]


def test_direct_encounter_with_missing_games_separates_only_the_unreachable() -> None:
    # X beat Y and Z; Y and Z never met.  X: 2 > 0 + 1 (what Y or Z could
    # still reach) -> X first; {Y, Z} reapplied: they never met -> tied.
    field = [Entry(k, seed=k) for k in (1, 2, 3, 4)]
    results = [
        beat(1, 1, 2),
        beat(1, 3, 4),
        beat(2, 1, 3),
        beat(2, 2, 4),
        beat(3, 4, 1),
        beat(3, 2, 3),
    ]
    # Scores: 1: 2, 2: 2 (4, 3), 3: 1, 4: 1.  Tied {1, 2}: 1 beat 2 -> 1 first.
    rows = compute_standings(field, results, StandingsSettings(tiebreaks=("DE",)))
    assert [r.entry for r in rows[:2]] == [1, 2]
    field = [Entry(k, seed=k) for k in (1, 2, 3, 4, 5)]
    results = [
        beat(1, 1, 2),
        beat(2, 1, 3),
        beat(1, 4, 5),
        beat(2, 5, 4),
        beat(3, 2, 4),
        beat(3, 3, 5),
        beat(4, 4, 1),
    ]
    # Scores: 1: 2, 2: 1, 3: 1, 4: 2, 5: 1.  Tied on 1: {2, 3, 5}: 2-3 never met,
    # 3-5: 3 won, 2-5 never met -> 3: 1 pt, 2: 0, 5: 0; unmet: 2: 2, 3: 1, 5: 1.
    # 3 is not out of reach (2 could reach 0 + 2) -> all tied.
    rows = compute_standings(field, results, StandingsSettings(tiebreaks=("DE",)))
    assert [r.place for r in rows if r.score == 1] == ["3-5"] * 3
