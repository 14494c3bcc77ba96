"""A Soldiers match in the product (RULES.md §3.1): recorded move by move through
the service and the board's JSON endpoints, class moves, a druid's pin and a
guard captured by two attackers, replayed, undone, scored, exported in the
project's own record and refused as .mat and SGF."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation

from analysis.analysers.bgsage_analyser import BgsageAnalyser
from analysis.core.model import AnalysisError
from engine.records.notation import format_play
from engine.rules import game as eg
from engine.rules.dice import RecordedDice
from engine.rules.plays import ClassStep, Play
from engine.rules.variants import SOLDIERS
from engine.soldiers.record import record_from_dict
from games import adapters, boardsvg, exports, services
from games.models import Match, MatchState, Turn, TurnKind
from tests.factories import DisciplineFactory, MatchFactory
from tests.games.helpers import current_state, play_out, user_of

pytestmark = pytest.mark.django_db


def soldiers_match(length: int = 3, **options: str) -> Match:
    discipline = DisciplineFactory(
        code="soldiers",
        name="Soldiers",
        variant="soldiers",
        scoring_preset="short-standard",
        cube=True,
        variant_options=options or {"army": "K1 G1 D1 E1 O1", "placement": "K24 G13 D8 E6 O6"},
    )
    return MatchFactory(discipline=discipline, length=length)


def record(match: Match, number: int, kind: str, dice: list[int] = (), moves: str = "") -> Turn:  # type: ignore[assignment]
    _n, state = current_state(match)
    side = state.to_act if state.to_act is not None else 0
    return services.record_turn(
        match, by=user_of(match, side), number=number, kind=kind, dice=list(dice), moves=moves
    ).turn


def live(match: Match) -> list[Turn]:
    return list(
        Turn.objects.filter(game__match=match, undone_at__isnull=True).order_by(
            "game__number", "number"
        )
    )


def drive_until(match: Match, wanted: set[str], seed: int, most: int = 60) -> dict[str, Turn]:
    """Record greedy plays (a play with a wanted effect first) until every
    wanted effect (``pin``, ``capture``) has been played: each by its turn."""
    rng = random.Random(seed)
    found: dict[str, Turn] = {}
    for _ in range(most):
        if not wanted:
            return found
        number, state = current_state(match)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        rolled = eg.roll(state, RecordedDice([dice])) if state.phase is eg.Phase.ROLL else state
        # in the order of the positions' texts: the game does not depend on
        # the order in which the generator lists the plays
        plays = sorted(eg.legal_plays(rolled), key=lambda p: repr(p.position))
        best = max(plays, key=lambda p: (len(effects(p) & wanted), rng.random()))
        turn = record(match, number, TurnKind.PLAY, list(rolled.dice), format_play(best))
        for effect in effects(best) & wanted:
            found[effect] = turn
        wanted = wanted - effects(best)
    raise AssertionError(f"no {wanted} in {most} turns")


def effects(play: Play) -> set[str]:
    return {s.effect for s in play.steps if isinstance(s, ClassStep)}


def test_a_soldiers_match_records_class_moves_a_pin_and_a_capture() -> None:
    match = soldiers_match()
    record(match, 1, TurnKind.OPENING, [5, 2])
    # a class move typed with its letters, stored canonically as text
    turn = record(match, 2, TurnKind.PLAY, [5, 2], "D8/6 G13/8")
    assert turn.moves == "G13/8 D8/6"
    assert turn.position_id == ""  # no Position ID holds classes
    assert turn.position_text.startswith("W: K24 P24 P13x4 G8 P8x2 D6 E6 O6 P6x3")
    assert turn.position_text.endswith("| B")  # black waits to roll
    # (a game that pins on its 8th turn and captures on its 18th; it does
    # not depend on the order in which the engine lists the plays)
    found = drive_until(match, {"pin", "capture"}, seed=6)
    pin, capture = found["pin"], found["capture"]
    assert "D" in pin.moves and "*" in pin.moves and "!" in pin.position_text
    assert "*" in capture.moves and "Gbar" in capture.position_text
    # every stored position replays to the engine's
    game = match.games.get()
    state = adapters.replay(match, game, live(match))
    assert adapters.position_fields(state)["position_text"] == live(match)[-1].position_text


def test_the_board_offers_steps_with_classes_and_records_a_clicked_play(client) -> None:  # type: ignore[no-untyped-def]
    match = soldiers_match()
    record(match, 1, TurnKind.OPENING, [6, 5])
    client.force_login(user_of(match, 0))
    found = client.get(reverse("games:plays", args=[match.pk]), {"dice": "6,5"}).json()
    steps = [step for play in found["plays"] for step in play["steps"]]
    assert steps and all(len(step) == 4 and step[3] in "KGDEOP" for step in steps)
    general = [p for p in found["plays"] if p["moves"].startswith("K24/")]
    assert general and general[0]["steps"][0][3] == "K"
    body = {"number": 2, "kind": "play", "dice": [6, 5], "moves": general[0]["moves"]}
    answer = client.post(
        reverse("games:record", args=[match.pk]), json.dumps(body), content_type="application/json"
    )
    assert answer.status_code == 200, answer.content
    position = answer.json()["state"]["position"]
    assert position["bar_classes"] == [[], []]
    assert len(position["classes"]) == 24
    assert all(
        len(position["classes"][loc][side]) == position["points"][loc][side]
        for loc in range(24)
        for side in (0, 1)
    )
    assert position["pinned"] == [[], []] and position["pinned_classes"] == [{}, {}]
    # a refused play says why, in words
    bad = {"number": 3, "kind": "play", "dice": [2, 1], "moves": "G13/5"}
    client.force_login(user_of(match, 1))
    refused = client.post(
        reverse("games:record", args=[match.pk]), json.dumps(bad), content_type="application/json"
    )
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "illegal_play"


def test_locations_give_each_checkers_class_and_the_pinned_ones() -> None:
    state = eg.new_game(eg.GameRules(SOLDIERS))
    shown = boardsvg.locations(SOLDIERS, state.position)
    # white's 24 is location 23, black's 24 location 0 (opposite directions)
    assert shown["classes"][23] == [["K", "P"], []]
    assert shown["classes"][0] == [[], ["K", "P"]]
    assert shown["classes"][5] == [["E", "O", "P", "P", "P"], []]
    from engine.soldiers import bridge

    pinned = bridge.position_from_text("W: D7 P2 | B: P18! P10 | B")
    shown = boardsvg.locations(SOLDIERS, pinned)
    # black's 18 is white's 7, location 6
    assert shown["pinned"] == [[], [6]] and shown["pinned_classes"] == [{}, {"6": "P"}]
    assert shown["classes"][6] == [["D"], ["P"]]
    # other variants are drawn as before
    assert "classes" not in boardsvg.locations(adapters.get_variant("short"), state.position)


def test_an_undone_turn_is_recorded_again_and_the_game_replays() -> None:
    match = soldiers_match()
    record(match, 1, TurnKind.OPENING, [3, 1])
    record(match, 2, TurnKind.PLAY, [3, 1], "8/5 6/5")
    request = services.request_undo(match, by=user_of(match, 0))
    undone = services.agree_undo(request, by=user_of(match, 1))
    assert undone.number == 2 and undone.undone_at is not None
    number, state = current_state(match)
    assert number == 2 and state.phase is eg.Phase.PLAY
    again = record(match, 2, TurnKind.PLAY, [3, 1], "D8/5 O6/5")  # O: odd dice only
    assert again.moves == "D8/5 O6/5" and "D5 O5" in again.position_text


def test_a_whole_match_is_scored_by_the_engine() -> None:
    match = soldiers_match(length=3)
    play_out(match, seed=5)
    match.refresh_from_db()
    assert match.state == MatchState.FINISHED
    games = list(match.games.order_by("number"))
    record_ = adapters.engine_match(match, games)
    assert record_.finished and max(record_.final_score) == 3
    for game in games:
        assert game.winner in (1, 2) and game.points == game.cube * game.multiplier
        last = live(match)
        assert all(t.position_id == "" for t in last)
    # the replay page of each game shows it turn by turn
    assert adapters.replay(match, games[0], [t for t in live(match) if t.game_id == games[0].pk])


def test_exports_refuse_mat_and_sgf_with_the_reason_and_keep_the_own_record(client) -> None:  # type: ignore[no-untyped-def]
    match = soldiers_match(length=1)
    play_out(match, seed=2)
    client.force_login(user_of(match, 0))
    for name in ("games:match_mat", "games:match_sgf"):
        answer = client.get(reverse(name, args=[match.pk]), HTTP_ACCEPT_LANGUAGE="en")
        assert answer.status_code == 409
        assert "Soldiers" in answer.content.decode() and "classes" in answer.content.decode()
    with translation.override("ru"):
        assert "Солдаты" in (exports.refusal(match, "mat") or "")
    assert exports.refusal(MatchFactory(), "mat") is None
    assert not exports.mat_supported(match)
    answer = client.get(reverse("games:match_record", args=[match.pk]))
    assert answer.status_code == 200 and "attachment" in answer["Content-Disposition"]
    data: dict[str, Any] = json.loads(answer.content)
    assert data["format"] == "zary-soldiers-match" and data["variant"] == "soldiers"
    assert data["options"]["army"] == "K1 G1 D1 E1 O1"
    (game,) = data["games"]
    assert game["turns"][-1]["position"] == live(match)[-1].position_text
    assert game["result"]["winner"] in (1, 2)
    checked = record_from_dict(game["record"])  # the engine's record replays
    assert checked.positions()[-1].text() == game["record"]["turns"][-1]["position"]
    assert any("K" in t["play"] for t in game["record"]["turns"])
    # other variants have no such record
    assert client.get(reverse("games:match_record", args=[MatchFactory().pk])).status_code == 404


def test_the_analysis_and_a_mat_log_refuse_soldiers() -> None:
    match = soldiers_match()
    with pytest.raises(AnalysisError) as refused:
        BgsageAnalyser.__new__(BgsageAnalyser).check_variant(SOLDIERS)
    assert refused.value.code == "not_analysable"
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as error:
        adapters.log_from_mat(match, "1 point match\n")
    assert error.value.code == "export_unsupported"


def test_the_discipline_options_reach_the_games_start() -> None:
    match = soldiers_match(army="K2 G1", placement="K24x2 G6")
    record(match, 1, TurnKind.OPENING, [3, 1])
    turn = record(match, 2, TurnKind.PLAY, [3, 1], "8/5 6/5")
    assert turn.position_text.startswith("W: K24x2 P13x5 P8x2 G6 P6x3 P5x2 |")
    assert turn.position_text.split("|")[1].strip() == "B: K24x2 P13x5 P8x3 G6 P6x4"


def test_the_demo_player_plays_and_stores_a_soldiers_match_at_once() -> None:
    from games import demo_player

    match = soldiers_match(length=1)
    demo_player.play_match(match, random.Random(4))
    match.refresh_from_db()
    turns = live(match)
    assert match.state == MatchState.FINISHED and turns
    plays = [t for t in turns if t.kind == TurnKind.PLAY]
    assert all(t.position_id == "" and t.position_text.startswith("W: ") for t in plays)
    # what the bulk path stored replays like a turn recorded one by one
    game = match.games.get()
    state = adapters.replay(match, game, turns)
    assert (
        state.finished
        and adapters.position_fields(state)["position_text"] == turns[-1].position_text
    )
