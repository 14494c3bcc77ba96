"""The board page, its JSON endpoints (state, legal plays, recording, undo) and the replay."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from clubs.models import Role
from engine.rules.variants import get_variant
from games import boardsvg, services
from games.models import Match, Turn, TurnKind
from tests.factories import DisciplineFactory, MatchFactory, UserFactory, grant
from tests.games.helpers import play_out, user_of

pytestmark = pytest.mark.django_db


def post_turn(client, match: Match, **turn):  # type: ignore[no-untyped-def]
    return client.post(
        reverse("games:record", args=[match.pk]),
        json.dumps(turn),
        content_type="application/json",
    )


def get_state(client, match: Match, **params):  # type: ignore[no-untyped-def]
    return client.get(reverse("games:state", args=[match.pk]), params)


def opening_and_first_play(match: Match) -> None:
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )


# --- The state


def test_state_after_known_turns(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_first_play(match)
    data = get_state(client, match).json()  # anyone reads a public federation's match
    points = data["position"]["points"]
    # Short nardy: White's point q is location q - 1, Black's point q is location 24 - q.
    assert points[4] == [2, 0] and points[5] == [4, 0] and points[7] == [2, 0]
    assert points[12] == [5, 0] and points[23] == [2, 0]
    assert points[0] == [0, 2] and points[11] == [0, 5] and points[16] == [0, 3]
    assert points[18] == [0, 5]
    assert data["position"]["bar"] == [0, 0] and data["position"]["off"] == [0, 0]
    assert data["position"]["pips"] == [163, 167]
    assert data["phase"] == "roll" and data["to_act"] == 2
    assert data["awaiting"] == "roll_or_double"
    assert data["actions"] == ["play", "double", "resign"]
    assert data["next_turn"] == 3
    assert data["dice"] == [] and data["cube"] == {
        "enabled": True,
        "value": 1,
        "owner": None,
        "offer": None,
    }
    assert data["match"]["score"] == [0, 0] and data["match"]["length"] == 3
    assert data["game"] == {"number": 1, "crawford": False, "score_before": [0, 0]}
    assert [t["text"] for t in data["turns"]] == ["Opening roll 3–1", "3-1: 8/5 6/5"]
    assert [t["side"] for t in data["turns"]] == [1, 1]
    assert data["viewer"] == {
        "side": None,
        "can_record": False,
        "can_arbitrate": False,
        "actions": [],  # an anonymous reader enters nothing
        "may_act": False,
        "waiting_note": "",
        "scorer": False,
        "may_switch_scorer": False,
        "may_request_undo": False,
        "may_agree_undo": False,
    }


def test_state_after_a_double_shows_the_offer_then_the_owned_cube(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_first_play(match)
    black = user_of(match, 1)
    services.record_turn(match, by=black, number=3, kind=TurnKind.DOUBLE)
    data = get_state(client, match).json()
    assert data["phase"] == "take" and data["to_act"] == 1
    assert data["awaiting"] == "take_or_pass"
    assert data["cube"]["offer"] == {"by": 2, "value": 2}
    assert data["actions"] == ["take", "pass"]
    services.record_turn(match, by=user_of(match, 0), number=4, kind=TurnKind.TAKE)
    data = get_state(client, match).json()
    assert data["cube"] == {"enabled": True, "value": 2, "owner": 1, "offer": None}
    assert data["to_act"] == 2 and data["actions"] == ["play", "resign"]


def test_state_since_and_unchanged_version(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_first_play(match)
    data = get_state(client, match, since=1).json()
    assert [t["number"] for t in data["turns"]] == [2]
    assert get_state(client, match, v=data["version"]).json() == {
        "version": data["version"],
        "unchanged": True,
    }
    services.record_turn(match, by=user_of(match, 1), number=3, kind=TurnKind.DOUBLE)
    changed = get_state(client, match, v=data["version"]).json()
    assert changed["version"] != data["version"] and changed["phase"] == "take"


def test_state_query_count_does_not_grow_with_the_turns(client, django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=0)
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[3, 1])
    with django_assert_num_queries(6):
        assert get_state(client, match).status_code == 200
    white = user_of(match, 0)
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    black = user_of(match, 1)
    services.record_turn(
        match, by=black, number=3, kind=TurnKind.PLAY, dice=[6, 4], moves="24/18 13/9"
    )
    services.record_turn(match, by=white, number=4, kind=TurnKind.DOUBLE)
    services.record_turn(match, by=black, number=5, kind=TurnKind.TAKE)
    with django_assert_num_queries(6):
        data = get_state(client, match).json()
    assert len(data["turns"]) == 5 and data["cube"]["owner"] == 2


def test_after_a_game_the_board_waits_for_the_next_opening(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=3)
    opening_and_first_play(match)
    black = user_of(match, 1)
    services.record_turn(match, by=black, number=3, kind=TurnKind.RESIGN, level="mars")
    services.record_turn(match, by=user_of(match, 0), number=4, kind=TurnKind.ACCEPT)
    data = get_state(client, match).json()
    assert data["match"]["score"] == [2, 0]
    assert data["game"] == {"number": 2, "crawford": True, "score_before": [2, 0]}
    assert data["phase"] == "opening" and data["next_turn"] == 1 and data["turns"] == []
    assert data["actions"] == ["opening"]
    assert data["last_game"]["winner"] == 1 and data["last_game"]["points"] == 2
    assert [g["number"] for g in data["games"]] == [1]
    assert data["games"][0]["replay_url"] == reverse("games:replay", args=[match.pk, 1])
    # The next turn recorded is turn 1 of game 2.
    response = post_turn(
        client_for(client, user_of(match, 1)), match, number=1, kind="opening", dice=[2, 5]
    )
    assert response.status_code == 200
    assert response.json()["state"]["to_act"] == 2


def client_for(client, user):  # type: ignore[no-untyped-def]
    client.force_login(user)
    return client


def test_a_finished_match_shows_the_final_score_and_offers_nothing(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    opening_and_first_play(match)
    services.record_turn(match, by=user_of(match, 1), number=3, kind=TurnKind.RESIGN)
    services.record_turn(match, by=user_of(match, 0), number=4, kind=TurnKind.ACCEPT)
    data = get_state(client_for(client, user_of(match, 0)), match).json()
    assert data["awaiting"] == "match_over" and data["actions"] == []
    assert data["match"]["score"] == [1, 0] and data["match"]["winner"] == 1
    assert data["match"]["state"] == "finished"
    assert data["phase"] == "finished" and len(data["turns"]) == 4


# --- Recording


def test_record_a_turn(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    response = post_turn(
        client_for(client, user_of(match, 1)), match, number=1, kind="opening", dice=[3, 5]
    )
    assert response.status_code == 200
    body = response.json()
    assert body["turn"]["side"] == 2 and body["turn"]["kind"] == "opening"
    assert body["state"]["phase"] == "play" and body["state"]["dice"] == [5, 3]
    turn = Turn.objects.get(game__match=match)
    assert turn.dice == [3, 5] and turn.recorded_by == user_of(match, 1)


def test_only_who_may_record_posts_a_turn(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    response = post_turn(client, match, number=1, kind="opening", dice=[3, 1])
    assert response.status_code == 403  # anonymous
    assert response.json()["error"]["code"] == "permission_denied"
    response = post_turn(
        client_for(client, UserFactory()), match, number=1, kind="opening", dice=[3, 1]
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert not Turn.objects.exists()


def test_an_illegal_turn_is_refused_with_the_engines_code_and_saves_nothing(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    response = post_turn(
        client_for(client, white), match, number=2, kind="play", dice=[3, 1], moves="24/21"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "must_play_both" and error["turn"] == 2
    assert "24/21 6/5" in error["reason"]
    assert Turn.objects.filter(game__match=match).count() == 1
    response = post_turn(client, match, number=2, kind="play", dice=[3, 1], moves="8/x")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_token"
    assert Turn.objects.filter(game__match=match).count() == 1


def test_a_turn_recorded_twice_is_a_conflict(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    client_for(client, user_of(match, 0))
    assert post_turn(client, match, number=1, kind="opening", dice=[6, 2]).status_code == 200
    response = post_turn(client, match, number=1, kind="opening", dice=[6, 2])
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "turn_already_recorded",
        "reason": "Turn 1 was already recorded; the next turn is 2.",
        "expected": 2,
    }
    assert Turn.objects.filter(game__match=match).count() == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("not json", "bad_request"),
        (json.dumps([1, 2]), "bad_request"),
        (json.dumps({"kind": "opening", "dice": [3, 1]}), "bad_request"),
        (json.dumps({"number": 1, "kind": "fly"}), "bad_request"),
        (json.dumps({"number": 1, "kind": "opening", "dice": "31"}), "invalid_dice"),
    ],
)
def test_malformed_requests_are_refused(client, body: str, code: str) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    response = client_for(client, user_of(match, 0)).post(
        reverse("games:record", args=[match.pk]), body, content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == code
    assert not Turn.objects.exists()


def test_a_match_not_recorded_move_by_move_refuses_turns(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False)
    response = post_turn(
        client_for(client, user_of(match, 0)), match, number=1, kind="opening", dice=[3, 1]
    )
    assert response.status_code == 400
    assert "not recorded move by move" in response.json()["error"]["reason"]
    assert get_state(client, match).json()["awaiting"] == "not_recorded"


# --- Legal plays for clicking checkers


def test_legal_plays_with_both_routes_of_a_combined_move(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    response = client_for(client, white).get(reverse("games:plays", args=[match.pk]))
    assert response.status_code == 200
    data = response.json()
    assert data["side"] == 1 and data["dice"] == [3, 1] and data["turn"] == 2
    by_moves: dict[str, list[list[list[object]]]] = {}
    for play in data["plays"]:
        by_moves.setdefault(play["moves"], []).append(play["steps"])
    assert len(by_moves) == 16  # the engine's distinct plays of 3-1 at the start
    assert sorted(map(sorted, by_moves["8/5 6/5"])) == [[[6, 5, False], [8, 5, False]]]
    # 6/2 may go by 5 or by 3: both routes are offered to the clicks.
    assert sorted(map(sorted, by_moves["6/2"])) == [
        [[3, 2, False], [6, 3, False]],
        [[5, 2, False], [6, 5, False]],
    ]


def test_legal_plays_of_entered_dice_in_the_roll_phase(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_first_play(match)
    black = user_of(match, 1)
    url = reverse("games:plays", args=[match.pk])
    data = client_for(client, black).get(url, {"dice": "6,6"}).json()
    assert data["side"] == 2 and data["dice"] == [6, 6]
    assert all(len(p["steps"]) == 4 for p in data["plays"])
    assert "24/18(2) 13/7(2)" in {p["moves"] for p in data["plays"]}
    refused = client.get(url, {"dice": "7,1"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_die"
    refused = client.get(url, {"dice": "x"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_dice"
    client.force_login(UserFactory())
    assert client.get(url, {"dice": "6,6"}).status_code == 403


def test_no_legal_move_is_one_empty_play(client) -> None:  # type: ignore[no-untyped-def]
    """A checker on the bar against a closed board: the only play is Ø."""
    from engine.rules import game as eg
    from engine.rules.board import Position
    from games.adapters import clickable_plays

    rules = eg.GameRules(get_variant("short"))
    closed = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    state = eg.set_opening(eg.new_game(rules, position=closed), 0, (6, 5))
    found = clickable_plays(state, [6, 5])
    assert found["plays"] == [{"moves": "Ø", "steps": []}]


# --- Undo


def post_undo(client, match: Match, action: str):  # type: ignore[no-untyped-def]
    return client.post(
        reverse("games:undo", args=[match.pk]),
        json.dumps({"action": action}),
        content_type="application/json",
    )


def test_undo_by_request_and_agreement(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_first_play(match)
    white, black = user_of(match, 0), user_of(match, 1)
    response = post_undo(client_for(client, white), match, "request")
    assert response.status_code == 200
    assert response.json()["state"]["undo"] == {"requested_by": 1, "turn": 2}
    response = post_undo(client, match, "agree")  # not by the one who asked
    assert response.status_code == 403
    assert "the opponent of the player who asked" in response.json()["error"]["reason"]
    assert Turn.objects.filter(undone_at__isnull=False).count() == 0
    response = post_undo(client_for(client, black), match, "agree")
    assert response.status_code == 200
    state = response.json()["state"]
    assert state["next_turn"] == 2 and state["undo"] is None and state["phase"] == "play"
    assert Turn.objects.get(undone_at__isnull=False).number == 2


def test_arbiter_undo_and_who_may_not(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    opening_and_first_play(match)
    response = post_undo(client_for(client, user_of(match, 0)), match, "arbiter")
    assert response.status_code == 403
    stranger = UserFactory()
    response = post_undo(client_for(client, stranger), match, "request")
    assert response.status_code == 403  # only a player may ask
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    response = post_undo(client_for(client, arbiter), match, "arbiter")
    assert response.status_code == 200
    assert response.json()["state"]["next_turn"] == 2
    assert response.json()["state"]["viewer"]["can_arbitrate"] is True
    assert post_undo(client, match, "agree").status_code == 400  # nobody asked
    assert post_undo(client, match, "dance").json()["error"]["code"] == "bad_request"


# --- Pages


def test_board_page_offers_recording_to_players_only(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    url = reverse("games:board", args=[match.pk])
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="board"' in html and 'id="board-state"' in html
    assert 'id="controls"' not in html
    html = client_for(client, user_of(match, 1)).get(url).content.decode()
    assert 'id="controls"' in html and 'id="record-opening"' in html
    assert '"perspective": 2' in html  # a player sees the board from their side


def test_a_private_federations_match_is_hidden_from_strangers(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    match.federation.is_public = False
    match.federation.save()
    for name in ("board", "state"):
        assert client.get(reverse(f"games:{name}", args=[match.pk])).status_code == 404
    client.force_login(user_of(match, 0))
    assert client.get(reverse("games:state", args=[match.pk])).status_code == 200


def test_replay_of_a_finished_game(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    game = match.games.get()
    live = game.turns.filter(undone_at__isnull=True).count()
    response = client.get(reverse("games:replay", args=[match.pk, 1]))
    assert response.status_code == 200
    frames = response.context["frames"]
    assert len(frames) == live + 1
    assert frames[0]["position"]["points"][23] == [2, 0]  # the start
    assert frames[-1]["finished"] is True and not frames[-2]["finished"]
    # Each frame's position is the stored Position ID of its turn.
    from engine.records.gnubgid import encode_position_id
    from engine.rules.board import Position

    for turn, frame in zip(game.turns.order_by("number"), frames[1:], strict=True):
        points = frame["position"]["points"]
        white = {q: points[q - 1][0] for q in range(1, 25) if points[q - 1][0]}
        black = {q: points[24 - q][1] for q in range(1, 25) if points[24 - q][1]}
        white[25] = frame["position"]["bar"][0]
        black[25] = frame["position"]["bar"][1]
        assert encode_position_id(Position.from_points(white, black)) == turn.position_id
    assert client.get(reverse("games:replay", args=[match.pk, 2])).status_code == 404


# --- Geometry


def test_short_nardy_layout_and_the_turned_board() -> None:
    short = get_variant("short")
    white_view = boardsvg.layout(short, 1)
    black_view = boardsvg.layout(short, 2)
    # The viewer's point 1 is bottom right, 13 top left, 24 top right.
    for view, side in ((white_view, 1), (black_view, 2)):
        slots = view["slots"]
        assert slots[0]["loc"] == boardsvg.location_of(short, side, 1)
        assert not slots[0]["top"] and slots[0]["x"] > slots[11]["x"]
        assert slots[12]["top"] and slots[12]["x"] < slots[23]["x"]
        assert slots[0]["x"] == slots[23]["x"]
    assert white_view["slots"][0]["loc"] == 0 and black_view["slots"][0]["loc"] == 23
    # Both bear off on the right; each side's bar checkers wait toward its entry.
    right = white_view["board"]["x"] + white_view["board"]["w"]
    assert all(tray["x"] > right for tray in white_view["trays"])
    assert [t["top"] for t in white_view["trays"]] == [False, True]
    assert [t["top"] for t in black_view["trays"]] == [True, False]
    assert white_view["bar_top"] == [True, False]


def test_long_nardy_layout_uses_the_same_direction_geometry() -> None:
    long = get_variant("long")
    view = boardsvg.layout(long, 1)
    slot_of = view["slot_of_location"]
    # Black's head (its 24) is White's 12: bottom left for White; Black's home top left.
    black_head = boardsvg.location_of(long, 2, 24)
    assert slot_of[black_head] == 11 and not view["slots"][11]["top"]
    black_one = boardsvg.location_of(long, 2, 1)
    assert slot_of[black_one] == 12 and view["slots"][12]["top"]
    # So Black bears off on the left, White on the right.
    left = view["board"]["x"]
    assert view["trays"][1]["x"] < left < view["trays"][0]["x"]
    counts = boardsvg.locations(long, long.start_position())["points"]
    assert counts[boardsvg.location_of(long, 1, 24)] == [15, 0]
    assert counts[black_head] == [0, 15]
    assert sum(a + b for a, b in counts) == 30


def test_long_nardy_board_state(client) -> None:  # type: ignore[no-untyped-def]
    long = DisciplineFactory(
        code="long", name="Long nardy", variant="long", scoring_preset="long-masters", cube=False
    )
    match = MatchFactory(discipline=long)
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[5, 2])
    data = get_state(client, match).json()
    assert data["phase"] == "roll" and data["to_act"] == 1
    assert data["actions"] == ["play", "resign"]  # long nardy: no cube
    assert data["cube"]["enabled"] is False
    services.record_turn(match, by=white, number=2, kind=TurnKind.PLAY, dice=[6, 5], moves="24/13")
    points = get_state(client, match).json()["position"]["points"]
    assert points[23] == [14, 0] and points[12] == [1, 0] and points[11] == [0, 15]
