"""Idempotency-Key (issue 19, point 5): a retried API write gets the first answer and
acts once; the same key with another request is 422; keys are scoped by the
credentials and the user, expire, and are forgotten after a 5xx.

Every endpoint a player or organizer writes to at a venue is driven the same way,
signed in by session and by an API token (clubs.tokens).
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from clubs import tokens
from clubs.models import ApiToken, AuditEntry, Role
from games import services as games_services
from games.models import ReportResponse, ReportSource, ResultReport, Turn
from idempotency.middleware import KEY_PATTERN, credentials_fingerprint, request_digest
from idempotency.models import IdempotencyKey, KeyState
from tests.factories import MatchFactory, PlayerFactory, UserFactory, grant
from tests.games.helpers import user_of
from tests.tournaments import builders
from tournaments import services as tournament_services
from tournaments.models import TournamentState

pytestmark = pytest.mark.django_db

KEY = "4f0c1a2e-7b9d-4c3e-8a51-d2f6e9b07c11"
REPLAYED = "Idempotent-Replayed"


@dataclass
class Endpoint:
    """One write: who makes it, where, with which body, and how to count what it did."""

    url: str
    actor: Any
    body: dict[str, Any]
    other_body: dict[str, Any]
    acted: Callable[[], int]


def _report() -> Endpoint:
    match = MatchFactory(recorded=False, length=5)
    return Endpoint(
        url="/api/reports/",
        actor=user_of(match, 0),
        body={"match": match.pk, "score1": 5, "score2": 3},
        other_body={"match": match.pk, "score1": 5, "score2": 2},
        acted=lambda: ResultReport.objects.filter(match=match).count(),
    )


def _reported() -> tuple[Any, ResultReport]:
    match = MatchFactory(recorded=False, length=5)
    return match, games_services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)


def _confirm() -> Endpoint:
    match, report = _reported()
    return Endpoint(
        url=f"/api/reports/{report.pk}/confirm/",
        actor=user_of(match, 1),
        body={},
        other_body={"note": "again"},
        acted=lambda: ReportResponse.objects.filter(report=report, kind="confirm").count(),
    )


def _dispute() -> Endpoint:
    match, report = _reported()
    return Endpoint(
        url=f"/api/reports/{report.pk}/dispute/",
        actor=user_of(match, 1),
        body={"reason": "It was 5-2"},
        other_body={"reason": "It was 5-1"},
        acted=lambda: ReportResponse.objects.filter(report=report, kind="dispute").count(),
    )


def _arbiter(match: Any) -> Any:
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, match.federation)
    return user


def _decide() -> Endpoint:
    match, report = _reported()
    games_services.dispute_report(report, by=user_of(match, 1), reason="It was 5-2")
    return Endpoint(
        url=f"/api/reports/{report.pk}/decide/",
        actor=_arbiter(match),
        body={"uphold": False, "score1": 5, "score2": 2, "reason": "Scoresheet"},
        other_body={"uphold": True, "reason": "Scoresheet"},
        acted=lambda: ResultReport.objects.filter(match=match, source=ReportSource.ARBITER).count(),
    )


def _override() -> Endpoint:
    match = MatchFactory(recorded=False, length=5)
    return Endpoint(
        url=f"/api/matches/{match.pk}/override/",
        actor=_arbiter(match),
        body={"score1": 5, "score2": 0, "reason": "Opponent absent", "forfeit": True},
        other_body={"score1": 0, "score2": 5, "reason": "Opponent absent", "forfeit": True},
        acted=lambda: ResultReport.objects.filter(
            match=match, source=ReportSource.OVERRIDE
        ).count(),
    )


def _turn() -> Endpoint:
    match = MatchFactory()
    return Endpoint(
        url=f"/api/matches/{match.pk}/turns/",
        actor=user_of(match, 0),
        body={"number": 1, "kind": "opening", "dice": [3, 1]},
        other_body={"number": 1, "kind": "opening", "dice": [4, 2]},
        acted=lambda: Turn.objects.filter(game__match=match).count(),
    )


def _check_in() -> Endpoint:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        0, "swiss", federation=federation, by=admin, rounds_planned=3, register=False, start=False
    )
    tournament_services.set_state(t, TournamentState.REGISTRATION, by=admin)
    player = PlayerFactory(federation=federation, user=UserFactory())
    entry = tournament_services.add_entry(t, player, by=admin)
    tournament_services.set_state(t, TournamentState.CHECK_IN, by=admin)
    return Endpoint(
        url=f"/api/entries/{entry.pk}/check-in/",
        actor=player.user,
        body={},
        other_body={"again": True},
        acted=lambda: AuditEntry.objects.filter(
            action="tournament.entry.check_in", target_id=entry.pk
        ).count(),
    )


ENDPOINTS = {
    "report": _report,
    "confirm": _confirm,
    "dispute": _dispute,
    "decide": _decide,
    "override": _override,
    "turn": _turn,
    "check-in": _check_in,
}


def bearer(user: Any) -> str:
    """A new read-and-write API token of ``user``, as its Authorization header."""
    made = tokens.create_personal_token(user, name="venue", scope="write", expires_in_days=None)
    return f"Bearer {made.plain}"


class Caller:
    """Sends API writes as one user, signed in by session or by an API token."""

    def __init__(self, client: Client, auth: str) -> None:
        self.client, self.auth = client, auth
        self.headers: dict[str, str] = {}

    def sign_in(self, user: Any) -> Caller:
        self.client.logout()
        if self.auth == "session":
            self.client.force_login(user)
            self.headers = {}
        else:
            self.headers = {"HTTP_AUTHORIZATION": bearer(user)}
        return self

    def post(self, url: str, body: dict[str, Any], key: str | None = KEY) -> Any:
        extra = dict(self.headers)
        if key is not None:
            extra["HTTP_IDEMPOTENCY_KEY"] = key
        return self.client.post(
            url,
            json.dumps(body),
            content_type="application/json",
            HTTP_ACCEPT="application/json",
            HTTP_ACCEPT_LANGUAGE="en",
            **extra,
        )


@pytest.fixture(params=["session", "token"])
def caller(request: Any, client: Client) -> Caller:
    return Caller(client, request.param)


@pytest.fixture(params=list(ENDPOINTS))
def endpoint(request: Any) -> Endpoint:
    return ENDPOINTS[request.param]()


# --- the same request twice


def test_a_retry_gets_the_first_answer_and_acts_once(caller: Caller, endpoint: Endpoint) -> None:
    caller.sign_in(endpoint.actor)
    first = caller.post(endpoint.url, endpoint.body)
    assert first.status_code in (200, 201), first.content
    assert REPLAYED not in first
    assert endpoint.acted() == 1
    again = caller.post(endpoint.url, endpoint.body)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again[REPLAYED] == "true"
    assert again["Content-Type"] == first["Content-Type"]
    assert endpoint.acted() == 1
    stored = IdempotencyKey.objects.get()
    assert (stored.state, stored.user_id, stored.key) == (KeyState.DONE, endpoint.actor.pk, KEY)


def test_the_same_key_with_another_body_is_422_and_does_nothing(
    caller: Caller, endpoint: Endpoint
) -> None:
    caller.sign_in(endpoint.actor)
    first = caller.post(endpoint.url, endpoint.body)
    assert first.status_code in (200, 201), first.content
    reused = caller.post(endpoint.url, endpoint.other_body)
    assert reused.status_code == 422
    assert reused.json()["code"] == "idempotency_key_reused"
    assert "different request" in reused.json()["detail"]
    assert endpoint.acted() == 1
    # Nor is the key's first answer overwritten: the first request still replays.
    assert caller.post(endpoint.url, endpoint.body).content == first.content


def test_the_same_key_on_another_address_is_422(caller: Caller) -> None:
    report, turn = _report(), _turn()
    caller.sign_in(report.actor)
    assert caller.post(report.url, report.body).status_code == 201
    turn_by_same_user = MatchFactory(player1=report.actor.player)
    url = f"/api/matches/{turn_by_same_user.pk}/turns/"
    assert caller.post(url, turn.body).status_code == 422
    assert not Turn.objects.filter(game__match=turn_by_same_user).exists()


def test_without_the_header_nothing_changes(caller: Caller) -> None:
    override, turn = _override(), _turn()
    caller.sign_in(override.actor)
    assert caller.post(override.url, override.body, key=None).status_code == 200
    assert caller.post(override.url, override.body, key=None).status_code == 200
    assert override.acted() == 2  # without a key, a retry is a second override
    caller.sign_in(turn.actor)
    assert caller.post(turn.url, turn.body, key=None).status_code == 201
    second = caller.post(turn.url, turn.body, key=None)
    assert second.status_code == 409 and REPLAYED not in second  # the turn number is taken
    assert not IdempotencyKey.objects.exists()


def test_a_safe_method_ignores_the_header(caller: Caller) -> None:
    report = _report()
    caller.sign_in(report.actor)
    response = caller.client.get(
        "/api/reports/", HTTP_IDEMPOTENCY_KEY="not a valid key", **caller.headers
    )
    assert response.status_code == 200
    assert not IdempotencyKey.objects.exists()


# --- whose key it is


def test_another_user_with_the_same_key_and_body_is_not_answered_as_the_first(
    caller: Caller,
) -> None:
    report = _report()
    caller.sign_in(report.actor)
    assert caller.post(report.url, report.body).status_code == 201
    stranger_user = UserFactory()
    stranger = caller.sign_in(stranger_user).post(report.url, report.body)
    assert stranger.status_code == 403 and REPLAYED not in stranger
    assert report.acted() == 1
    # Another player, with the same key, reports their own match: their own write.
    opponent_match = MatchFactory(recorded=False, length=5)
    opponent = user_of(opponent_match, 0)
    body = {"match": opponent_match.pk, "score1": 5, "score2": 1}
    answer = caller.sign_in(opponent).post(report.url, body)
    assert answer.status_code == 201 and REPLAYED not in answer
    # One key each (the stranger's refusal is their answer to replay).
    owners = IdempotencyKey.objects.filter(key=KEY).values_list("user_id", flat=True)
    assert sorted(owners) == sorted([report.actor.pk, stranger_user.pk, opponent.pk])


def test_the_answer_is_replayed_only_to_credentials_that_still_authenticate(
    client: Client,
) -> None:
    report = _report()
    caller = Caller(client, "token").sign_in(report.actor)
    first = caller.post(report.url, report.body)
    assert first.status_code == 201
    ApiToken.objects.update(revoked_at=timezone.now())
    revoked = caller.post(report.url, report.body)
    assert revoked.status_code == 401 and REPLAYED not in revoked
    assert report.acted() == 1


def test_a_refused_login_keeps_no_key_and_the_retry_acts(client: Client) -> None:
    report = _report()
    caller = Caller(client, "token")
    caller.headers = {"HTTP_AUTHORIZATION": "Bearer zary_00000000_" + "x" * 43}
    assert caller.post(report.url, report.body).status_code == 401
    assert not IdempotencyKey.objects.exists()
    caller.sign_in(report.actor)
    assert caller.post(report.url, report.body).status_code == 201
    assert report.acted() == 1


def test_an_anonymous_write_keeps_no_key(client: Client) -> None:
    report = _report()
    response = Caller(client, "session").post(report.url, report.body)
    assert response.status_code == 401
    assert not IdempotencyKey.objects.exists() and report.acted() == 0


# --- keys in the database: expiry, failures, twins


def test_an_expired_key_acts_again(caller: Caller, settings: Any) -> None:
    settings.IDEMPOTENCY_KEY_TTL_HOURS = 24
    override = _override()
    caller.sign_in(override.actor)
    assert caller.post(override.url, override.body).status_code == 200
    IdempotencyKey.objects.update(created_at=timezone.now() - datetime.timedelta(hours=25))
    again = caller.post(override.url, override.body)
    assert again.status_code == 200 and REPLAYED not in again
    assert override.acted() == 2
    assert IdempotencyKey.objects.get().created_at > timezone.now() - datetime.timedelta(hours=1)


def test_the_lifetime_follows_the_setting(caller: Caller, settings: Any) -> None:
    settings.IDEMPOTENCY_KEY_TTL_HOURS = 1
    override = _override()
    caller.sign_in(override.actor)
    assert caller.post(override.url, override.body).status_code == 200
    IdempotencyKey.objects.update(created_at=timezone.now() - datetime.timedelta(minutes=59))
    assert caller.post(override.url, override.body)[REPLAYED] == "true"
    IdempotencyKey.objects.update(created_at=timezone.now() - datetime.timedelta(minutes=61))
    assert REPLAYED not in caller.post(override.url, override.body)
    assert override.acted() == 2


def test_the_command_and_the_beat_task_delete_expired_keys(capsys: Any) -> None:
    from config.celery import app as celery_app
    from idempotency.tasks import expire_idempotency_keys

    now = timezone.now()
    for name, age in (("old", 25), ("older", 48), ("fresh", 23)):
        IdempotencyKey.objects.create(
            fingerprint="f" * 64,
            key=name,
            request_digest="d" * 64,
            created_at=now - datetime.timedelta(hours=age),
        )
    call_command("expire_idempotency_keys")
    assert "deleted 2" in capsys.readouterr().out
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["fresh"]
    IdempotencyKey.objects.update(created_at=now - datetime.timedelta(hours=30))
    assert expire_idempotency_keys() == 1 and not IdempotencyKey.objects.exists()
    entry = celery_app.conf.beat_schedule["expire-idempotency-keys"]
    assert entry["task"] == expire_idempotency_keys.name


@pytest.mark.parametrize("auth", ["session", "token"])
def test_a_server_error_leaves_no_key_and_the_retry_acts(auth: str, monkeypatch: Any) -> None:
    endpoint = _confirm()
    caller = Caller(Client(raise_request_exception=False), auth).sign_in(endpoint.actor)
    real_confirm = games_services.confirm_report

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(games_services, "confirm_report", broken)
    assert caller.post(endpoint.url, endpoint.body).status_code == 500
    assert not IdempotencyKey.objects.exists()
    monkeypatch.setattr(games_services, "confirm_report", real_confirm)
    retry = caller.post(endpoint.url, endpoint.body)
    assert retry.status_code == 200 and REPLAYED not in retry
    assert retry.json()["status"] == "confirmed" and endpoint.acted() == 1


def _in_progress_twin(endpoint: Endpoint, caller: Caller, age: datetime.timedelta) -> None:
    """The row a request with the same key and body leaves while its view still runs."""
    from django.test import RequestFactory

    twin = RequestFactory().post(
        endpoint.url,
        json.dumps(endpoint.body),
        content_type="application/json",
        **caller.headers,
    )
    twin.session = caller.client.session
    IdempotencyKey.objects.create(
        fingerprint=credentials_fingerprint(twin),
        key=KEY,
        request_digest=request_digest(twin, twin.body),
        created_at=timezone.now() - age,
    )


def test_a_twin_still_in_progress_gets_409(caller: Caller) -> None:
    endpoint = _turn()
    caller.sign_in(endpoint.actor)
    _in_progress_twin(endpoint, caller, age=datetime.timedelta(seconds=1))
    response = caller.post(endpoint.url, endpoint.body)
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_in_progress"
    assert endpoint.acted() == 0


def test_a_twin_that_takes_the_key_between_lookup_and_insert_gets_409(
    caller: Caller, monkeypatch: Any
) -> None:
    """Both twins looked the key up before either inserted it: the unique constraint
    decides, and the loser answers 409 without acting."""
    from idempotency import middleware

    endpoint = _turn()
    caller.sign_in(endpoint.actor)
    _in_progress_twin(endpoint, caller, age=datetime.timedelta(seconds=1))
    monkeypatch.setattr(middleware, "_live_record", lambda fingerprint, key: None)
    response = caller.post(endpoint.url, endpoint.body)
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_in_progress"
    assert endpoint.acted() == 0 and IdempotencyKey.objects.count() == 1


def test_a_twin_that_died_with_its_worker_frees_the_key(caller: Caller) -> None:
    endpoint = _turn()
    caller.sign_in(endpoint.actor)
    _in_progress_twin(endpoint, caller, age=datetime.timedelta(minutes=10))
    assert caller.post(endpoint.url, endpoint.body).status_code == 201
    assert endpoint.acted() == 1
    assert IdempotencyKey.objects.get().state == KeyState.DONE


# --- the key itself


@pytest.mark.parametrize(
    "key",
    ["", "x" * 256, "two words", "ключ", "tab\tinside"],
    ids=["empty", "too-long", "space", "non-ascii", "control"],
)
def test_a_malformed_key_is_400_and_does_nothing(caller: Caller, key: str) -> None:
    report = _report()
    caller.sign_in(report.actor)
    response = caller.post(report.url, report.body, key=key)
    assert response.status_code == 400
    assert response.json()["code"] == "idempotency_key_invalid"
    assert "Idempotency-Key" in response.json()["detail"]
    assert report.acted() == 0 and not IdempotencyKey.objects.exists()


def test_a_keyed_body_too_large_to_remember_is_413(caller: Caller, settings: Any) -> None:
    report = _report()
    caller.sign_in(report.actor)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    response = caller.post(report.url, report.body)
    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"
    assert report.acted() == 0 and not IdempotencyKey.objects.exists()


def test_the_longest_key_is_accepted(caller: Caller) -> None:
    report = _report()
    caller.sign_in(report.actor)
    longest = "~" * 255
    assert caller.post(report.url, report.body, key=longest).status_code == 201
    assert caller.post(report.url, report.body, key=longest)[REPLAYED] == "true"


def test_the_schema_documents_the_header_on_every_write(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    writes = [
        (path, method, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in {"post", "put", "patch", "delete"}
    ]
    assert len(writes) > 40
    for path, method, operation in writes:
        headers = [p for p in operation["parameters"] if p["in"] == "header"]
        assert [h["name"] for h in headers] == ["Idempotency-Key"], (method, path)
        assert headers[0]["required"] is False
        assert headers[0]["schema"]["maxLength"] == 255
        assert {"409", "422"} <= set(operation["responses"]), (method, path)
    pattern = re.compile(KEY_PATTERN)
    assert pattern.fullmatch(KEY) and pattern.fullmatch("~" * 255)
    assert not pattern.fullmatch("two words") and not pattern.fullmatch("x" * 256)
    turns = schema["paths"]["/api/matches/{id}/turns/"]["post"]["responses"]
    either = turns["409"]["content"]["application/json"]["schema"]["anyOf"]
    assert {"$ref": "#/components/schemas/IdempotencyKeyError"} in either
    assert len(either) == 2
    assert "IdempotencyKeyError" in schema["components"]["schemas"]


# --- a body that a middleware before this one has read


class ParseFormFirst:
    """A middleware that parses the form before the idempotency middleware runs."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        request.POST  # noqa: B018 (parsing is the point)
        return self.get_response(request)


def _with_form_parsed_first(settings: Any) -> None:
    middleware = list(settings.MIDDLEWARE)
    middleware.insert(
        middleware.index("idempotency.middleware.IdempotencyKeyMiddleware"),
        f"{__name__}.ParseFormFirst",
    )
    settings.MIDDLEWARE = middleware


def test_a_form_parsed_before_still_tells_requests_apart(caller: Caller, settings: Any) -> None:
    _with_form_parsed_first(settings)
    override = _override()
    caller.sign_in(override.actor)

    def send(body: dict[str, Any]) -> Any:
        return caller.client.post(
            override.url,
            body,
            HTTP_IDEMPOTENCY_KEY=KEY,
            HTTP_ACCEPT_LANGUAGE="en",
            **caller.headers,
        )  # multipart: Django parses it into request.POST

    first = send(override.body)
    assert first.status_code == 200, first.content
    again = send(override.body)
    assert again[REPLAYED] == "true" and again.content == first.content
    assert send(override.other_body).status_code == 422
    assert override.acted() == 1
