"""The API refuses bodies that are too large (413) or nested too deeply (400), never a 500."""

from __future__ import annotations

import json

import pytest

from base import jsonbody
from tests.conftest import run_python
from tests.factories import MatchFactory, UserFactory

pytestmark = pytest.mark.django_db

ENDPOINT = "/api/reports/"


@pytest.fixture
def player_client(client):  # type: ignore[no-untyped-def]
    client.force_login(UserFactory())
    return client


def post_json(client, text: str):  # type: ignore[no-untyped-def]
    return client.post(ENDPOINT, data=text, content_type="application/json")


@pytest.mark.parametrize(
    "body",
    [
        "[" * 10_000 + "]" * 10_000,  # past the decoder's recursion limit
        '{"a":' * 10_000 + "1" + "}" * 10_000,
        "[" * 10_000,  # and never closed
        "[" * (jsonbody.MAX_JSON_DEPTH + 1)
        + "]" * (jsonbody.MAX_JSON_DEPTH + 1),  # parses, too deep
    ],
    ids=["array-10000", "object-10000", "unclosed-10000", "array-65"],
)
def test_a_deeply_nested_body_is_refused_with_400(player_client, body: str) -> None:  # type: ignore[no-untyped-def]
    response = post_json(player_client, body)
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "The JSON body nests lists and objects more than 64 levels deep."
    )


def test_the_board_refuses_a_deeply_nested_turn_with_400(client) -> None:  # type: ignore[no-untyped-def]
    """The board page posts its turns as JSON outside DRF: the same body is refused there."""
    match = MatchFactory()
    client.force_login(match.player1.user)
    response = client.post(
        f"/matches/{match.pk}/turns/",
        data="[" * 10_000 + "]" * 10_000,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["error"]["reason"]


def test_nesting_up_to_the_limit_is_parsed(player_client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False)
    player_client.force_login(match.player1.user)
    deep = "[" * (jsonbody.MAX_JSON_DEPTH - 1) + "]" * (jsonbody.MAX_JSON_DEPTH - 1)
    body = f'{{"match": {match.pk}, "score1": 3, "score2": 0, "junk": {deep}}}'
    response = post_json(player_client, body)
    assert response.status_code == 201, response.content  # the unknown field is ignored
    assert response.json()["score1"] == 3


def test_broken_json_still_answers_drf_s_parse_error(player_client) -> None:  # type: ignore[no-untyped-def]
    response = post_json(player_client, '{"match": ')
    assert response.status_code == 400
    assert response.json()["detail"].startswith("JSON parse error - ")
    response = post_json(player_client, '{"score1": NaN}')
    assert response.status_code == 400


def test_nesting_depth_counts_levels_without_recursion() -> None:
    assert jsonbody.nesting_depth(7) == 0
    assert jsonbody.nesting_depth([]) == 1
    assert jsonbody.nesting_depth({"a": [1, {"b": []}], "c": 2}) == 4
    deep: list[object] = []
    for _ in range(5000):  # deeper than the recursion limit
        deep = [deep]
    assert jsonbody.nesting_depth(deep) == 5001


def test_a_body_over_the_limit_is_refused_with_413(player_client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = json.dumps({"match": 1, "score1": 3, "score2": 0, "note": "x" * 5000})
    response = post_json(player_client, big)
    assert response.status_code == 413
    assert response.json()["detail"] == (
        "The request body is larger than 1000 bytes, the most this server accepts."
    )
    form = player_client.post(
        ENDPOINT,
        data="match=1&note=" + "x" * 5000,
        content_type="application/x-www-form-urlencoded",
    )
    assert form.status_code == 413
    # Under the limit the same endpoint parses the body as usual.
    small = post_json(player_client, json.dumps({"match": 10**9, "score1": 3, "score2": 0}))
    assert small.status_code == 400 and "match" in small.json()


def test_a_multipart_field_over_the_limit_is_refused_with_413(player_client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = player_client.post(ENDPOINT, data={"match": "1", "note": "x" * 5000})
    assert response.status_code == 413
    assert "larger than 1000 bytes" in response.json()["detail"]


def test_the_limit_comes_from_the_environment(clean_env) -> None:  # type: ignore[no-untyped-def]
    code = "import django; django.setup(); from django.conf import settings as s; print(s.DATA_UPLOAD_MAX_MEMORY_SIZE)"
    assert run_python(code, clean_env).stdout.strip() == "2621440"
    configured = run_python(code, dict(clean_env, DATA_UPLOAD_MAX_MEMORY_SIZE="12345"))
    assert configured.stdout.strip() == "12345", configured.stderr
