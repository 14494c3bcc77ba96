"""Each player acts only for their own side: every action × every role, through
the REST API and through the board page's JSON endpoints (issue 12, point 1).

A case puts a match where one side must act (``Case.setup``, entered by the
right players through the services), then a role tries the action.  Allowed:
the action passes the permission check (and is saved, or for a beaver refused
by the engine, which never allows one in a match).  Refused: 403 with a message
naming the action and whose it is, and nothing saved.

Roles: ``player`` is the player of the side that must act; ``opponent`` the
other player; ``scorer`` the opponent once both players agreed to scorer mode;
``arbiter`` a federation admin of the match with scorer mode off;
``arbiter_scorer`` the same arbiter after switching scorer mode on;
``stranger`` a signed-in user with no role; ``anonymous`` nobody signed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError

from clubs import permissions
from clubs.models import Role
from games import services
from games.models import ClockMode, Match, MatchState, ReportStatus, Turn, TurnKind, UndoRequest
from games.permissions import SideAction
from tests.factories import MatchFactory, UserFactory, grant
from tests.games.helpers import post_json, recorded_ago, user_of

pytestmark = pytest.mark.django_db

ROLES = ["player", "opponent", "scorer", "arbiter", "arbiter_scorer", "stranger", "anonymous"]
# The action whose role matrix is here (tests/test_permission_coverage.py); the
# scorer switch takes a plain match and sits in tests/games/test_permissions.py.
COVERED = {"match.act_for_side"}


def white(match: Match) -> Any:
    return user_of(match, 0)


def black(match: Match) -> Any:
    return user_of(match, 1)


def turn(match: Match, by: Any, number: int, kind: str, **fields: Any) -> None:
    services.record_turn(match, by=by, number=number, kind=kind, **fields)


def opening(match: Match) -> None:
    """3-1: White starts with the dice on the table (turn 2 is White's play)."""
    turn(match, white(match), 1, TurnKind.OPENING, dice=[3, 1])


def white_flagged(match: Match) -> None:
    """The opening roll, then White's whole reserve passes by the server's clock."""
    opening(match)
    recorded_ago(match, match.clock_reserve_ms() / 1000 + 1)


def white_played(match: Match) -> None:
    """After the opening and White's 8/5 6/5: Black to roll or double (turn 3)."""
    opening(match)
    turn(match, white(match), 2, TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5")


def black_doubled(match: Match) -> None:
    white_played(match)
    turn(match, black(match), 3, TurnKind.DOUBLE)


def black_resigned(match: Match) -> None:
    white_played(match)
    turn(match, black(match), 3, TurnKind.RESIGN, level="single")


def white_asked_undo(match: Match) -> None:
    white_played(match)
    services.request_undo(match, by=white(match))


@dataclass(frozen=True)
class Case:
    """``side``: the side that must act (None: either player, the opening roll)."""

    setup: Callable[[Match], None]
    side: int | None
    api: tuple[str, dict[str, Any]]  # path under /api/matches/<id>/ and body
    board: tuple[str, dict[str, Any]] | None  # the board page's endpoint and body
    allowed_status: int = 201
    arbiter_allowed: bool = False  # an arbiter decides it even with scorer mode off
    clock: bool = False


def _turn(number: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"number": number, "kind": kind, **fields}


CASES: dict[str, Case] = {
    "opening": Case(
        lambda m: None,
        None,
        ("turns", _turn(1, "opening", dice=[3, 1])),
        ("turns", _turn(1, "opening", dice=[3, 1])),
    ),
    "play": Case(
        opening,
        1,
        ("turns", _turn(2, "play", dice=[3, 1], moves="8/5 6/5")),
        ("turns", _turn(2, "play", dice=[3, 1], moves="8/5 6/5")),
    ),
    # Dice entered with the play: Black rolls 6-4 and runs a back checker.
    "dice": Case(
        white_played,
        2,
        ("turns", _turn(3, "play", dice=[6, 4], moves="24/14")),
        ("plays", {"dice": "6,4"}),
        allowed_status=201,
    ),
    "double": Case(white_played, 2, ("turns", _turn(3, "double")), ("turns", _turn(3, "double"))),
    "take": Case(black_doubled, 1, ("turns", _turn(4, "take")), ("turns", _turn(4, "take"))),
    "pass": Case(black_doubled, 1, ("turns", _turn(4, "pass")), ("turns", _turn(4, "pass"))),
    # The engine never allows a beaver in a match: past the permission check it is a 400.
    "beaver": Case(
        black_doubled,
        1,
        ("turns", _turn(4, "beaver")),
        ("turns", _turn(4, "beaver")),
        allowed_status=400,
    ),
    "resign": Case(
        white_played,
        2,
        ("turns", _turn(3, "resign", level="mars")),
        ("turns", _turn(3, "resign", level="mars")),
    ),
    "accept": Case(black_resigned, 1, ("turns", _turn(4, "accept")), ("turns", _turn(4, "accept"))),
    "reject": Case(black_resigned, 1, ("turns", _turn(4, "reject")), ("turns", _turn(4, "reject"))),
    # The asker names the side they ask for (their own; a scorer either).
    "undo_request": Case(
        white_played,
        1,
        ("undo", {"action": "request", "side": 1}),
        None,
    ),
    "undo_agree": Case(
        white_asked_undo,
        2,
        ("undo", {"action": "agree"}),
        ("undo", {"action": "agree"}),
        allowed_status=200,
    ),
    # White's flag fell: the claim is Black's (the side still on time), or an arbiter's.
    "timeout": Case(
        white_flagged,
        2,
        ("timeout", {"loser": 1}),
        None,
        allowed_status=200,
        arbiter_allowed=True,
        clock=True,
    ),
}

TURN_LABELS = {
    "play": "roll and play",
    "dice": "roll and play",
    "double": "double",
    "take": "take",
    "pass": "pass",
    "beaver": "beaver",
    "resign": "resign",
    "accept": "accept resignation",
    "reject": "reject resignation",
}


def allowed(action: str, role: str) -> bool:
    case = CASES[action]
    if role in ("scorer", "arbiter_scorer", "player"):
        return True
    if role == "opponent":
        return case.side is None  # the opening roll: either player enters it
    if role == "arbiter":
        return case.arbiter_allowed
    return False


def build(action: str, role: str) -> tuple[Match, Any]:
    case = CASES[action]
    extra = {"clock_mode": ClockMode.INCREMENT, "clock_reserve_seconds": 600} if case.clock else {}
    match = MatchFactory(length=3, **extra)
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    case.setup(match)
    side = case.side or 1
    player = user_of(match, side - 1)
    opponent = user_of(match, 2 - side)
    if role == "scorer":
        services.set_scorer_mode(match, by=player, on=True)
        services.set_scorer_mode(match, by=opponent, on=True)
    if role == "arbiter_scorer":
        services.set_scorer_mode(match, by=arbiter, on=True)
    users = {
        "player": player,
        "opponent": opponent,
        "scorer": opponent,
        "arbiter": arbiter,
        "arbiter_scorer": arbiter,
        "stranger": UserFactory(),
        "anonymous": None,
    }
    match.refresh_from_db()
    return match, users[role]


def saved(match: Match) -> tuple[int, int, int, str]:
    return (
        Turn.objects.filter(game__match=match, undone_at__isnull=True).count(),
        UndoRequest.objects.filter(match=match, closed_at__isnull=True).count(),
        match.reports.count(),
        Match.objects.get(pk=match.pk).state,
    )


post = post_json  # the API answers in English, as JSON


def check_refusal(response, match: Match, action: str, before: tuple, role: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 403, response.content
    assert saved(match) == before, "a refused action saved something"
    if role in ("anonymous", "stranger"):
        return
    body = response.json()
    reason = (body.get("error") or body)["reason"]
    side = CASES[action].side
    if action in TURN_LABELS:
        assert f"“{TURN_LABELS[action]}”" in reason
        assert f"it is {match.player(side)}'s turn" in reason  # type: ignore[arg-type]
    elif action == "undo_agree":
        assert f"Only {match.player(2)}, the opponent of the player who asked" in reason
    elif action == "timeout":
        assert f"Only {match.player(2)}, the opponent of the player whose time ran out" in reason
    elif action == "opening":
        assert "“opening roll”: only the players of this match" in reason
    else:
        assert "for their own side" in reason


def check_success(response, match: Match, action: str, before: tuple, user: Any) -> None:  # type: ignore[no-untyped-def]
    case = CASES[action]
    assert response.status_code == case.allowed_status, response.content
    if case.allowed_status == 400:
        body = response.json()
        assert (body.get("error") or body)["code"] == "beaver_not_allowed"
        assert saved(match) == before
        return
    assert saved(match) != before
    if case.api[0] == "turns":
        last = Turn.objects.filter(game__match=match).latest("id")
        assert last.recorded_by == user
        if case.side is not None:
            assert last.side == case.side


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", list(CASES))
def test_api_side_matrix(client, action: str, role: str) -> None:  # type: ignore[no-untyped-def]
    match, user = build(action, role)
    if user is not None:
        client.force_login(user)
    before = saved(match)
    path, body = CASES[action].api
    response = post(client, f"/api/matches/{match.pk}/{path}/", body)
    if allowed(action, role):
        check_success(response, match, action, before, user)
    elif role == "anonymous":
        # No credentials: the API asks for a token (401, clubs.authentication).
        assert response.status_code == 401, response.content
        assert response["WWW-Authenticate"].startswith("Bearer")
        assert saved(match) == before, "a refused action saved something"
    else:
        check_refusal(response, match, action, before, role)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", [a for a, c in CASES.items() if c.board is not None])
def test_board_side_matrix(client, action: str, role: str) -> None:  # type: ignore[no-untyped-def]
    """The board page's own endpoints answer the same (its controls call them)."""
    match, user = build(action, role)
    if user is not None:
        client.force_login(user)
    before = saved(match)
    endpoint, body = CASES[action].board  # type: ignore[misc]
    url = f"/matches/{match.pk}/{'turns' if endpoint == 'turns' else endpoint}/"
    if endpoint == "plays":
        response = client.get(f"/matches/{match.pk}/plays.json", body, HTTP_ACCEPT_LANGUAGE="en")
    else:
        response = post(client, url, body)
    if not allowed(action, role):
        check_refusal(response, match, action, before, role)
        return
    if endpoint == "plays":
        assert response.status_code == 200, response.content
        assert response.json()["side"] == 2 and response.json()["plays"]
        return
    expected = 200 if CASES[action].allowed_status != 400 else 400
    assert response.status_code == expected, response.content
    if expected == 400:
        assert response.json()["error"]["code"] == "beaver_not_allowed"
        assert saved(match) == before
        return
    assert saved(match) != before
    if endpoint == "turns":
        last = Turn.objects.filter(game__match=match).latest("id")
        assert last.recorded_by == user
        assert CASES[action].side is None or last.side == CASES[action].side


# --- The state the board shows each viewer


def test_the_board_offers_actions_only_to_the_side_to_act(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    white_played(match)  # Black to roll or double
    client.force_login(white(match))
    state = client.get(f"/matches/{match.pk}/state.json", HTTP_ACCEPT_LANGUAGE="en").json()
    assert state["viewer"]["actions"] == [] and "double" in state["actions"]
    assert state["viewer"]["may_act"] is False
    assert state["viewer"]["waiting_note"].startswith(f"It is {match.player2}'s turn")
    client.force_login(black(match))
    state = client.get(f"/matches/{match.pk}/state.json", HTTP_ACCEPT_LANGUAGE="en").json()
    assert state["viewer"]["actions"] == ["play", "double", "resign"]
    assert state["viewer"]["may_act"] is True and state["viewer"]["waiting_note"] == ""


def test_the_reported_attack_is_refused(client) -> None:  # type: ignore[no-untyped-def]
    """Black, while White is to roll, cannot resign for White nor then accept it."""
    match = MatchFactory()
    opening(match)
    turn(match, white(match), 2, TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5")
    turn(match, black(match), 3, TurnKind.PLAY, dice=[6, 4], moves="24/14")  # White to roll
    client.force_login(black(match))
    response = post(client, f"/matches/{match.pk}/turns/", _turn(4, "resign", level="mars"))
    assert response.status_code == 403
    assert not Turn.objects.filter(game__match=match, kind=TurnKind.RESIGN).exists()
    # White resigns for real; Black is the one to accept it, White cannot accept their own.
    turn(match, white(match), 4, TurnKind.RESIGN, level="single")
    with pytest.raises(PermissionDenied):
        turn(match, white(match), 5, TurnKind.ACCEPT)
    turn(match, black(match), 5, TurnKind.ACCEPT)
    assert match.games.get().winner == 2


def test_nobody_doubles_and_takes_the_same_cube() -> None:
    match = MatchFactory()
    white_played(match)
    turn(match, black(match), 3, TurnKind.DOUBLE)
    with pytest.raises(PermissionDenied):
        turn(match, black(match), 4, TurnKind.TAKE)
    assert Turn.objects.filter(game__match=match).count() == 3


# --- Scorer mode


def test_players_must_both_agree_to_scorer_mode() -> None:
    match = MatchFactory()
    opening(match)
    services.set_scorer_mode(match, by=black(match), on=True)
    match.refresh_from_db()
    assert not match.scorer_mode and match.scorer_proposed_by == 2
    with pytest.raises(ValidationError):  # proposing twice does not make it two consents
        services.set_scorer_mode(match, by=black(match), on=True)
    with pytest.raises(PermissionDenied):  # a proposal alone lets nobody enter the other side
        turn(match, black(match), 2, TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5")
    services.set_scorer_mode(match, by=white(match), on=True)
    match.refresh_from_db()
    assert match.scorer_mode and match.scorer is None and match.scorer_proposed_by is None
    turn(match, black(match), 2, TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5")
    # Either player withdraws: each side is its own again.
    services.set_scorer_mode(match, by=white(match), on=False)
    with pytest.raises(PermissionDenied):
        turn(match, white(match), 3, TurnKind.DOUBLE)
    recorded = Turn.objects.get(game__match=match, number=2)
    assert recorded.recorded_by == black(match) and recorded.side == 1


def test_an_arbiters_scorer_mode_is_switched_off_only_by_an_arbiter() -> None:
    match = MatchFactory()
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    stranger = UserFactory()
    with pytest.raises(PermissionDenied):
        services.set_scorer_mode(match, by=stranger, on=True)
    services.set_scorer_mode(match, by=arbiter, on=True)
    match.refresh_from_db()
    assert match.scorer_mode and match.scorer == arbiter
    # The arbiter enters both sides; the players still only their own.
    turn(match, arbiter, 1, TurnKind.OPENING, dice=[3, 1])
    turn(match, arbiter, 2, TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5")
    with pytest.raises(PermissionDenied):
        turn(match, white(match), 3, TurnKind.DOUBLE)
    with pytest.raises(PermissionDenied):
        services.set_scorer_mode(match, by=white(match), on=False)
    services.set_scorer_mode(match, by=arbiter, on=False)
    with pytest.raises(PermissionDenied):
        turn(match, arbiter, 3, TurnKind.DOUBLE)
    assert set(Turn.objects.values_list("recorded_by", flat=True)) == {arbiter.pk}


def test_a_site_admin_who_plays_acts_only_for_their_own_side() -> None:
    match = MatchFactory()
    admin = white(match)
    admin.is_superuser = True
    admin.save()
    opening(match)
    turn(match, admin, 2, TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5")
    assert not permissions.can(admin, "match.act_for_side", SideAction(match, 2))
    with pytest.raises(PermissionDenied):
        turn(match, admin, 3, TurnKind.DOUBLE)
    # As an admin they may switch scorer mode on (recorded as the scorer), then enter it.
    services.set_scorer_mode(match, by=admin, on=True)
    match.refresh_from_db()
    assert match.scorer == admin
    turn(match, admin, 3, TurnKind.DOUBLE)


def test_scorer_mode_api_and_recorded_by_on_the_pages(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    client.force_login(white(match))
    response = post(client, f"/api/matches/{match.pk}/scorer/", {"on": True})
    assert response.status_code == 200 and response.json()["scorer_proposed_by"] == 1
    assert response.json()["scorer_mode"] is False
    client.force_login(black(match))
    response = post(client, f"/api/matches/{match.pk}/scorer/", {"on": True})
    assert response.json()["scorer_mode"] is True
    # Black enters both sides on one device; the record names Black on White's turns.
    for number, kind, fields in (
        (1, "opening", {"dice": [3, 1]}),
        (2, "play", {"dice": [3, 1], "moves": "8/5 6/5"}),
    ):
        response = post(client, f"/api/matches/{match.pk}/turns/", _turn(number, kind, **fields))
        assert response.status_code == 201, response.content
        assert response.json()["recorded_by"] == black(match).username
    state = client.get(f"/matches/{match.pk}/state.json", HTTP_ACCEPT_LANGUAGE="en").json()
    rows = {row["number"]: row for row in state["turns"]}
    # The opening roll is both players' (White starts, Black entered it): no recorder shown.
    assert rows[1]["side"] == 1 and rows[1]["recorded_by"] is None
    assert rows[2]["recorded_by"] == str(match.player2)
    assert rows[2]["recorded_by_text"] == f"recorded by {match.player2}"
    assert state["viewer"]["scorer"] is True
    response = client.get(f"/matches/{match.pk}/games/1/replay/", HTTP_ACCEPT_LANGUAGE="en")
    assert f"recorded by {match.player2}" in response.content.decode()
    # A stranger may not touch the switch.
    client.force_login(UserFactory())
    response = post(client, f"/api/matches/{match.pk}/scorer/", {"on": False})
    assert response.status_code == 403
    assert Match.objects.get(pk=match.pk).scorer_mode is True


def test_a_turn_entered_by_its_own_player_shows_no_recorder(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    white_played(match)
    client.force_login(black(match))
    state = client.get(f"/matches/{match.pk}/state.json", HTTP_ACCEPT_LANGUAGE="en").json()
    assert [row["recorded_by"] for row in state["turns"]] == [None, None]


def test_an_anonymous_user_is_refused_by_the_rule_itself() -> None:
    match = MatchFactory()
    assert not permissions.can(AnonymousUser(), "match.act_for_side", SideAction(match, None))
    with pytest.raises(PermissionDenied):
        services.record_turn(
            match, by=AnonymousUser(), number=1, kind=TurnKind.OPENING, dice=[3, 1]
        )
    assert not Turn.objects.exists()


def test_a_match_without_a_clock_has_no_loss_on_time() -> None:
    match = MatchFactory()
    opening(match)
    with pytest.raises(ValidationError):
        services.record_timeout(match, by=black(match), loser=1)
    assert Match.objects.get(pk=match.pk).state == MatchState.PLAYING


# --- Nobody reports and confirms the same result


def test_the_reporter_cannot_confirm_their_own_report() -> None:
    match = MatchFactory(recorded=False)
    report = services.submit_report(match, by=white(match), score1=3, score2=1)
    with pytest.raises(ValidationError):
        services.confirm_report(report, by=white(match))
    report.refresh_from_db()
    assert report.status == ReportStatus.PENDING


def test_an_arbiter_who_reported_cannot_confirm_it() -> None:
    """Even an arbiter who is also a player of the match: the reporter is refused
    whichever side the report was filed for (or none, as an official entry)."""
    match = MatchFactory(recorded=False)
    arbiter = white(match)
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    report = services.submit_report(match, by=arbiter, score1=3, score2=1)
    report.refresh_from_db()
    if report.status == ReportStatus.PENDING:
        with pytest.raises(ValidationError):
            services.confirm_report(report, by=arbiter)
        report.refresh_from_db()
        assert report.status == ReportStatus.PENDING
    # Filed with no side (an arbiter's entry awaiting someone): still the reporter's.
    report.status = ReportStatus.PENDING
    report.reporter_side = None
    report.save()
    with pytest.raises(ValidationError):
        services.confirm_report(report, by=arbiter)
    assert not report.responses.filter(by=arbiter).exists()
