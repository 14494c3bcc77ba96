from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import movegen
from engine.errors import EngineError
from engine.rules import game as g
from engine.rules.board import BAR, BLACK, WHITE, Position
from engine.rules.dice import SeededDice
from engine.rules.scoring import (
    CONDITIONS,
    PRESETS,
    ScoringPreset,
    ScoringPresetError,
    ScoringRule,
    get_preset,
    preset_from_dict,
    score,
)
from engine.rules.variants import CHASE, LONG, SHORT

# White has won (all off); black's position varies.  Short family: black's
# point q is white's 25 - q, so black's 1..6 is black's home and black's 19..24
# is white's home.
WON: dict[int, int] = {}


def lost(black: dict[int, int]) -> Position:
    return Position.from_points(WON, black)


@pytest.mark.parametrize(
    ("black", "expected"),
    [
        ({1: 3}, ("single", 1)),  # 12 off, rest home
        ({6: 15}, ("mars", 2)),  # none off, all home
        ({7: 15}, ("mars", 2)),  # none off, outside home but not in winner's home
        ({6: 14, 19: 1}, ("koks", 3)),  # black's 19 = white's 6: winner's home
        ({6: 14, 25: 1}, ("koks", 3)),  # on the bar
        ({18: 15}, ("mars", 2)),  # black's 18 = white's 7: not the winner's home
        ({24: 1}, ("single", 1)),  # 14 off: a checker in the winner's home does not matter
    ],
)
def test_short_standard(black: dict[int, int], expected: tuple[str, int]) -> None:
    assert score(PRESETS["short-standard"], SHORT, lost(black), BLACK) == expected


@pytest.mark.parametrize(
    ("black", "expected"),
    [
        ({2: 1}, ("single", 1)),
        ({1: 15}, ("mars", 2)),
        ({1: 14, 7: 1}, ("mars x4", 4)),
        ({1: 14, 25: 1}, ("mars x8", 8)),
    ],
)
def test_short_nauka(black: dict[int, int], expected: tuple[str, int]) -> None:
    assert score(PRESETS["short-nauka-1980"], SHORT, lost(black), BLACK) == expected


@pytest.mark.parametrize(
    ("preset", "black", "expected"),
    [
        ("long-masters", {1: 2}, ("single", 1)),
        ("long-masters", {1: 15}, ("home mars", 3)),
        ("long-masters", {1: 14, 13: 1}, ("mars", 2)),
        ("long-masters", {24: 15}, ("mars", 2)),
        ("long-article", {1: 15}, ("single", 1)),  # all home, none off: no mars here
        ("long-article", {1: 14, 13: 1}, ("mars", 2)),
        ("long-article", {1: 1, 13: 1}, ("mars", 2)),  # some off, one not home
    ],
)
def test_long_presets(preset: str, black: dict[int, int], expected: tuple[str, int]) -> None:
    assert score(PRESETS[preset], LONG, lost(black), BLACK) == expected


def test_winner_home_follows_geometry() -> None:
    # Long family: black's 13..18 lie on white's 1..6 (opponent's q = q - 12).
    in_white_home = ScoringPreset("t", (ScoringRule("hit", 5, ("in_winner_home_or_bar",)),))
    assert score(in_white_home, LONG, lost({13: 1}), BLACK) == ("hit", 5)
    assert score(in_white_home, LONG, lost({19: 1}), BLACK) == ("single", 1)
    # The same checkers read in the short geometry: black's 19..24 = white's 1..6.
    assert score(in_white_home, SHORT, lost({19: 1}), BLACK) == ("hit", 5)
    assert score(in_white_home, SHORT, lost({13: 1}), BLACK) == ("single", 1)


def test_white_as_loser() -> None:
    position = Position.from_points({6: 14, 19: 1}, {})
    assert score(PRESETS["short-standard"], SHORT, position, WHITE) == ("koks", 3)


def test_on_start_and_on_bar() -> None:
    preset = ScoringPreset(
        "fed",
        (ScoringRule("koks", 4, ("on_start",)), ScoringRule("bar", 3, ("on_bar",))),
    )
    assert score(preset, LONG, lost({24: 1, 1: 1}), BLACK) == ("koks", 4)
    assert score(preset, SHORT, lost({25: 1}), BLACK) == ("bar", 3)
    assert score(preset, SHORT, lost({23: 1}), BLACK) == ("single", 1)


def test_mother_pinned_reads_position_extra() -> None:
    plakoto = PRESETS["plakoto"]
    black = Position.from_points(WON, {1: 3}).sides
    pinned = Position(black, (("mother_pinned", (False, True)),))
    not_pinned = Position(black, (("mother_pinned", (True, False)),))
    assert score(plakoto, SHORT, pinned, BLACK) == ("mars", 2)
    assert score(plakoto, SHORT, not_pinned, BLACK) == ("single", 1)
    assert score(plakoto, SHORT, Position(black), BLACK) == ("single", 1)
    with pytest.raises(ScoringPresetError) as err:
        score(plakoto, SHORT, Position(black, (("mother_pinned", "yes"),)), BLACK)
    assert err.value.code == "bad_mother_pinned"


def test_single_preset_always_one() -> None:
    assert score(PRESETS["single"], SHORT, lost({25: 15}), BLACK) == ("single", 1)


def test_every_preset_has_a_source_and_round_trips() -> None:
    assert set(PRESETS) == {
        "short-standard",
        "short-nauka-1980",
        "long-masters",
        "long-article",
        "tavla",
        "single",
        "plakoto",
    }
    for preset in PRESETS.values():
        assert preset.source
        assert preset_from_dict(preset.to_dict()) == preset


def test_catalogue() -> None:
    assert set(CONDITIONS) == {
        "none_off",
        "not_all_home",
        "all_home_none_off",
        "in_winner_home_or_bar",
        "on_bar",
        "on_start",
        "mother_pinned",
    }


def test_federation_list() -> None:
    preset = preset_from_dict(
        {
            "name": "my-federation",
            "rules": [
                {"name": "koks", "multiplier": 4, "conditions": ["on_start"]},
                {"name": "home mars", "multiplier": 3, "conditions": ["all_home_none_off"]},
                {"name": "mars", "multiplier": 2, "conditions": ["not_all_home"]},
            ],
        }
    )
    assert score(preset, LONG, lost({24: 1, 1: 14}), BLACK) == ("koks", 4)
    assert score(preset, LONG, lost({1: 15}), BLACK) == ("home mars", 3)
    assert score(preset, LONG, lost({1: 1, 8: 1}), BLACK) == ("mars", 2)
    assert preset.result_names() == ("single", "koks", "home mars", "mars")
    assert preset.multiplier_of("home mars") == 3
    assert preset.multiplier_of("nothing") is None


def _rules(*rules: dict[str, object]) -> dict[str, object]:
    return {"name": "x", "rules": list(rules)}


@pytest.mark.parametrize(
    ("data", "code", "index"),
    [
        (_rules({"name": "a", "multiplier": 2, "conditions": ["nope"]}), "unknown_condition", 0),
        (
            _rules(
                {"name": "a", "multiplier": 2, "conditions": ["none_off"]},
                {"name": "b", "multiplier": 0, "conditions": ["on_bar"]},
            ),
            "bad_multiplier",
            1,
        ),
        (_rules({"name": "a", "multiplier": 2.0, "conditions": []}), "bad_multiplier", 0),
        (_rules({"name": "a", "multiplier": True, "conditions": []}), "bad_multiplier", 0),
        (_rules({"name": "a", "multiplier": "2", "conditions": []}), "bad_multiplier", 0),
        (_rules({"name": " ", "multiplier": 2, "conditions": []}), "empty_rule_name", 0),
        (
            _rules(
                {"name": "a", "multiplier": 2, "conditions": ["none_off"]},
                {"name": "a", "multiplier": 3, "conditions": ["on_bar"]},
            ),
            "duplicate_rule_name",
            1,
        ),
        (
            _rules({"name": "single", "multiplier": 3, "conditions": ["on_bar"]}),
            "duplicate_rule_name",
            0,
        ),
        (
            _rules(
                {"name": "a", "multiplier": 2, "conditions": ["none_off", "on_bar"]},
                {"name": "b", "multiplier": 3, "conditions": ["on_bar", "none_off"]},
            ),
            "unreachable_rule",
            1,
        ),
        (
            _rules(
                {"name": "a", "multiplier": 2, "conditions": ["none_off"]},
                {"name": "b", "multiplier": 3, "conditions": ["none_off", "on_bar"]},
            ),
            "unreachable_rule",
            1,
        ),
        (
            _rules(
                {"name": "a", "multiplier": 2, "conditions": []},
                {"name": "b", "multiplier": 3, "conditions": ["on_bar"]},
            ),
            "unreachable_rule",
            1,
        ),
        (
            _rules({"name": "a", "multiplier": 2, "conditions": ["on_bar", "on_bar"]}),
            "duplicate_condition",
            0,
        ),
    ],
)
def test_invalid_federation_lists(data: dict[str, object], code: str, index: int) -> None:
    with pytest.raises(ScoringPresetError) as err:
        preset_from_dict(data)
    assert err.value.code == code
    assert err.value.data["rule"] == index
    assert isinstance(err.value, ValueError)
    assert isinstance(err.value, EngineError)


def test_invalid_preset_shapes() -> None:
    for data, code in [
        ({"rules": []}, "empty_preset_name"),
        ({"name": "x", "rules": "koks"}, "bad_preset"),
        ({"name": "x", "rules": ["koks"]}, "bad_rule"),
        (
            {"name": "x", "rules": [{"name": "a", "multiplier": 2, "conditions": "on_bar"}]},
            "bad_rule",
        ),
    ]:
        with pytest.raises(ScoringPresetError) as err:
            preset_from_dict(data)
        assert err.value.code == code


def test_same_name_same_multiplier_means_either() -> None:
    # Plakoto's two ways to a mars are one result: allowed.
    preset = preset_from_dict(
        _rules(
            {"name": "mars", "multiplier": 2, "conditions": ["mother_pinned"]},
            {"name": "mars", "multiplier": 2, "conditions": ["none_off"]},
        )
    )
    assert preset.result_names() == ("single", "mars")


def test_unknown_preset() -> None:
    with pytest.raises(ScoringPresetError) as err:
        get_preset("koks-only")
    assert err.value.code == "unknown_preset"
    assert get_preset("tavla") is PRESETS["tavla"]


def test_unknown_keys_are_refused() -> None:
    with pytest.raises(ScoringPresetError) as err:
        preset_from_dict({"name": "x", "rule": []})
    assert (err.value.code, err.value.data["keys"]) == ("unknown_key", ["rule"])
    with pytest.raises(ScoringPresetError) as err:
        preset_from_dict(
            _rules(
                {"name": "a", "multiplier": 2, "conditions": ["none_off"]},
                {"name": "b", "multiplier": 3, "condition": ["on_bar"]},
            )
        )
    assert (err.value.code, err.value.data["rule"]) == ("unknown_key", 1)


# --- user-defined presets: properties ------------------------------------------

_NAMES = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz -x0123456789", min_size=1, max_size=12
).filter(lambda s: s == s.strip() and s != "")


@st.composite
def valid_rule_dicts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A valid list of rules: distinct names, no rule shadowed by an earlier one."""
    count = draw(st.integers(0, 5))
    rules: list[dict[str, Any]] = []
    seen: list[frozenset[str]] = []
    names: set[str] = {"single"}
    for _ in range(count):
        conds = draw(st.sets(st.sampled_from(sorted(CONDITIONS)), min_size=1, max_size=3))
        if any(earlier <= conds for earlier in seen):
            continue
        name = draw(_NAMES.filter(lambda n: n not in names))
        names.add(name)
        seen.append(frozenset(conds))
        rules.append(
            {
                "name": name,
                "multiplier": draw(st.integers(1, 64)),
                "conditions": draw(st.permutations(sorted(conds))),
            }
        )
    return rules


@given(rules=valid_rule_dicts(), name=_NAMES, source=st.text(max_size=20))
@settings(max_examples=150, deadline=None)
def test_user_presets_round_trip(rules: list[dict[str, Any]], name: str, source: str) -> None:
    data = {"name": name, "source": source, "default": "single", "rules": rules}
    preset = preset_from_dict(data)
    saved = preset.to_dict()
    assert saved == {**data, "rules": [{**r, "conditions": list(r["conditions"])} for r in rules]}
    loaded = preset_from_dict(json.loads(json.dumps(saved)))
    assert loaded == preset
    # The loaded preset scores every result the same way.
    for rule in rules:
        assert loaded.multiplier_of(rule["name"]) == rule["multiplier"]


_BREAKERS: list[tuple[str, Callable[[list[dict[str, Any]]], dict[str, Any]]]] = [
    ("unknown_condition", lambda before: {"name": "Bad!", "multiplier": 2, "conditions": ["zz"]}),
    ("bad_multiplier", lambda before: {"name": "Bad!", "multiplier": 0, "conditions": ["on_bar"]}),
    ("bad_multiplier", lambda before: {"name": "Bad!", "multiplier": 1.5, "conditions": []}),
    ("empty_rule_name", lambda before: {"name": "  ", "multiplier": 2, "conditions": []}),
    (
        "duplicate_condition",
        lambda before: {"name": "Bad!", "multiplier": 2, "conditions": ["on_bar", "on_bar"]},
    ),
    ("unknown_key", lambda before: {"name": "Bad!", "multiplier": 2, "when": []}),
    ("bad_rule", lambda before: {"name": "Bad!", "multiplier": 2, "conditions": "on_bar"}),
]


@given(rules=valid_rule_dicts(), data=st.data())
@settings(max_examples=150, deadline=None)
def test_validation_errors_point_at_the_rule(
    rules: list[dict[str, Any]], data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(rules)))
    before = rules[:index]
    choices: list[tuple[str, dict[str, Any]]] = [(code, make(before)) for code, make in _BREAKERS]
    if before:
        earlier = data.draw(st.sampled_from(before))
        # Same conditions as an earlier rule (plus maybe more): never the first match.
        extra = data.draw(st.sets(st.sampled_from(sorted(CONDITIONS)), max_size=1))
        conds = sorted(set(earlier["conditions"]) | extra)
        choices.append(("unreachable_rule", {"name": "Bad!", "multiplier": 7, "conditions": conds}))
        choices.append(
            (
                "duplicate_rule_name",
                {
                    "name": earlier["name"],
                    "multiplier": earlier["multiplier"] + 1,
                    "conditions": conds,
                },
            )
        )
    code, bad = data.draw(st.sampled_from(choices))
    broken = [*before, bad, *rules[index:]]
    with pytest.raises(ScoringPresetError) as err:
        preset_from_dict({"name": "fed", "rules": broken})
    assert err.value.code == code
    assert err.value.data["rule"] == index
    assert f"rule {index}" in err.value.reason


# --- Chase: one shared path (RULES.md §6, issue 12) --------------------------------
# Both sides walk the same points 24..1, so "the winner's home" is the loser's
# own home.  The condition reads there as "on the bar or in the first quarter
# of the loser's path (its 24..19)", as far from home as the winner's home is
# in short nardy.


@pytest.mark.parametrize(
    ("black", "expected"),
    [
        ({6: 15}, ("mars", 2)),  # none off, all in its own home (= the winner's): not koks
        ({1: 14, 7: 1}, ("mars", 2)),
        ({18: 1, 6: 14}, ("mars", 2)),  # 18: just past the first quarter
        ({19: 1, 6: 14}, ("koks", 3)),  # 19: the last point of the first quarter
        ({24: 1, 6: 14}, ("koks", 3)),
        ({BAR: 1, 6: 14}, ("koks", 3)),  # not yet entered (Chase keeps them on the bar)
        ({24: 1}, ("single", 1)),  # some borne off
    ],
)
def test_chase_reads_winner_home_as_the_first_quarter(
    black: dict[int, int], expected: tuple[str, int]
) -> None:
    assert score(PRESETS["short-standard"], CHASE, lost(black), BLACK) == expected


def random_chase_game(seed: int) -> g.GameState:
    """A random legal Chase game (seeded dice, uniformly chosen plays), played out."""
    dice = SeededDice(seed)
    rng = random.Random(seed)
    state = g.opening_roll(g.new_game(g.GameRules(CHASE)), dice)
    while not state.finished:
        side = state.turn
        assert side is not None
        if state.phase is g.Phase.ROLL:
            state = g.roll(state, dice)
        plays = movegen.legal_plays(
            CHASE, state.position, side, state.dice, first_turn=state.first_turn[side]
        )
        state = g.apply_legal_play(state, rng.choice(plays))
    return state


def test_random_chase_games_end_in_koks_only_from_the_first_quarter() -> None:
    """100 seeded random Chase games (the issue's 300 took a minute): each
    koks has a loser checker on the bar or on its 24..19, each mars none;
    and the old reading (any checker in the loser's own home, which is where
    nearly every loser that bore off nothing stands) would have made far
    more of them koks: koks fell from about three games in four to under
    half, as the issue's 219 of 300 shows."""
    games = 100
    counts = {"koks": 0, "mars": 0, "single": 0}
    old_reading_koks = 0
    for seed in range(games):
        state = random_chase_game(seed)
        result = state.result
        assert result is not None
        loser = 1 - result.winner
        row = state.position.side(loser)
        none_off = row[0] == 0
        first_quarter = row[BAR] > 0 or any(row[q] for q in range(19, 25))
        expected = "koks" if none_off and first_quarter else "mars" if none_off else "single"
        assert result.result_name == expected, seed
        counts[result.result_name] += 1
        old_reading_koks += none_off and (row[BAR] > 0 or any(row[q] for q in range(1, 7)))
    assert counts["koks"] + counts["mars"] + counts["single"] == games
    assert counts["koks"] < games // 2, counts
    assert counts["mars"] > 0 and counts["single"] > 0, counts
    assert old_reading_koks - counts["koks"] >= games // 5, (old_reading_koks, counts)
