"""A NUL character in a request is a 400/401, never a 500 (PostgreSQL refuses it
in text; found by the Schemathesis run in tests/config/test_api_fuzz.py)."""

from __future__ import annotations

import base64

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def basic(userid: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{userid}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.mark.parametrize(("userid", "password"), [("a\x00b", "x"), ("someone", "pass\x00word")])
def test_basic_credentials_with_a_nul_are_refused_as_wrong(client, userid, password) -> None:
    response = client.post("/api/memberships/", {}, headers=basic(userid, password))
    # 403 as for any wrong password (session authentication comes first in DRF's
    # list, so DRF answers 403 rather than 401); before the fix PostgreSQL made it 500.
    assert response.status_code == 403, response.content
    assert response.json()["detail"] == "Incorrect authentication credentials."


def test_good_basic_credentials_still_work(client) -> None:
    UserFactory(username="real")
    response = client.get("/api/reports/", headers=basic("real", "correct-horse-battery"))
    assert response.status_code == 200


@pytest.mark.parametrize("query", ["search=a%00b", "ordering=%00", "a%00=1", "page=1&search=%00"])
def test_a_nul_in_the_query_string_is_a_400(client, query: str) -> None:
    response = client.get(f"/api/players/?{query}", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "NUL character" in response.json()["detail"]


def test_a_nul_in_the_path_is_a_400(client) -> None:
    response = client.get("/api/players/%00/")
    assert response.status_code == 400
