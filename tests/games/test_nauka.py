"""Nauka i Zhizn (``nauka-short``) in the games app: the opening throw names
the colours (the higher thrower plays White and starts, RULES §4), so either
player may start as White.  Sides stay the players' seats; the board, its
replay and the match page say who plays White in each game."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from engine.rules import game as eg
from games import services
from games.models import Match, MatchState, TurnKind
from games.services.recording import RecordingError
from tests.factories import DisciplineFactory, MatchFactory
from tests.games.helpers import current_state, play_out, user_of

pytestmark = pytest.mark.django_db


def nauka_match(length: int = 1) -> Match:
    discipline = DisciplineFactory(
        code="nauka",
        name="Nauka i Zhizn",
        variant="nauka-short",
        scoring_preset="short-nauka-1980",
        cube=False,
    )
    return MatchFactory(discipline=discipline, length=length)


def board_state(client, match: Match) -> dict:  # type: ignore[no-untyped-def,type-arg]
    response = client.get(reverse("games:state", args=[match.pk]))
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


def test_the_second_player_throwing_higher_plays_white_and_starts(client) -> None:  # type: ignore[no-untyped-def]
    match = nauka_match()
    client.force_login(user_of(match, 0))
    assert board_state(client, match)["white"] is None  # not thrown yet
    opening = services.record_turn(
        match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[2, 5]
    ).turn
    assert opening.side == 2  # the starter
    _n, state = current_state(match)
    assert (state.white_player, state.turn, state.dice) == (1, 1, (5, 2))
    data = board_state(client, match)
    assert (data["white"], data["to_act"], data["dice_side"], data["dice"]) == (2, 2, 2, [5, 2])
    # Player 1 (Black this game) may not play White's opening dice.
    with pytest.raises(PermissionDenied) as refused:
        services.record_turn(
            match, by=user_of(match, 0), number=2, kind=TurnKind.PLAY, dice=[5, 2], moves="13/8 6/4"
        )
    assert f"it is {match.player2}'s turn" in str(refused.value)
    assert match.games.get().turns.count() == 1
    services.record_turn(
        match, by=user_of(match, 1), number=2, kind=TurnKind.PLAY, dice=[5, 2], moves="13/8 6/4"
    )
    _n, state = current_state(match)
    assert (state.phase, state.turn) == (eg.Phase.ROLL, 0)


def test_the_first_player_throwing_higher_plays_white(client) -> None:  # type: ignore[no-untyped-def]
    match = nauka_match()
    services.record_turn(match, by=user_of(match, 1), number=1, kind=TurnKind.OPENING, dice=[6, 1])
    _n, state = current_state(match)
    assert (state.white_player, state.turn, state.dice) == (0, 0, (6, 1))
    client.force_login(user_of(match, 1))
    assert board_state(client, match)["white"] == 1


def test_equal_opening_dice_are_refused_and_save_nothing() -> None:
    match = nauka_match()
    with pytest.raises(RecordingError) as refused:
        services.record_turn(
            match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[4, 4]
        )
    assert refused.value.code == "opening_tie"
    assert not match.games.filter(turns__isnull=False).exists()


def test_a_whole_match_is_played_scored_and_replayed_with_its_colours(client) -> None:  # type: ignore[no-untyped-def]
    match = nauka_match(length=3)
    play_out(match, seed=5)
    match.refresh_from_db()
    assert match.state == MatchState.FINISHED
    games = list(match.games.order_by("number"))
    whites = []
    for game in games:
        response = client.get(reverse("games:replay", args=[match.pk, game.number]))
        assert response.status_code == 200
        frames = response.context["frames"]
        # The start, before the opening, names nobody White; every later frame
        # names the opening's winner, who made the game's first move.
        assert frames[0]["white"] is None
        opening = game.turns.filter(undone_at__isnull=True).order_by("number").first()
        assert opening is not None and opening.kind == TurnKind.OPENING
        white_dice_first = opening.dice[0] > opening.dice[1]
        assert {f["white"] for f in frames[1:]} == {1 if white_dice_first else 2}
        whites.append(frames[1]["white"])
        assert game.winner in (1, 2) and game.points
    # The match's score is the sum of its games' points, to each game's winner.
    totals = [0, 0]
    for game in games:
        totals[game.winner - 1] += game.points
    assert max(totals) >= 3
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    assert "Player 1 (White)" not in page and "Player 1" in page


def test_other_variants_keep_player_one_white(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[2, 5])
    client.force_login(user_of(match, 0))
    data = board_state(client, match)
    assert (data["white"], data["to_act"]) == (1, 2)
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    assert "Player 1 (White)" in page


def test_the_new_match_form_names_no_colour_it_cannot_know(client) -> None:  # type: ignore[no-untyped-def]
    # The form is filled before the discipline is chosen, so its labels say
    # "Player 1" and the help says when that player is not White.
    match = MatchFactory(length=1)
    client.force_login(user_of(match, 0))
    page = client.get(reverse("games:match_new")).content.decode()
    assert "Player 1 (White)" not in page and "Player 2 (Black)" not in page
    assert "Player 1" in page and "Nauka i Zhizn rules" in page
    page = client.get(reverse("games:match_new"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Игрок 1" in page and "решает первый бросок" in page
