from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_admin_login_page_is_served(client) -> None:
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert b'name="password"' in response.content


def test_api_root_answers_json(client) -> None:
    response = client.get("/api/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")


def test_openapi_schema_and_its_documentation_page(client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    assert schema.json()["info"]["title"] == "Zary API"
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content
    # Served by the project itself (no CDN: the machines have no internet).
    assert b"cdn.jsdelivr" not in docs.content


def test_home_page_in_russian_and_english(client) -> None:
    russian = client.get("/", HTTP_ACCEPT_LANGUAGE="ru")
    assert "Турниры по нардам".encode() in russian.content
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert b"Nardy tournaments, clubs and ratings" in english.content


def test_demo_organizer_can_sign_in(client) -> None:
    from clubs import demo

    account = demo.load()[0]
    assert demo.load()[0].created is False  # loading twice keeps one account
    # Through the sign-in page: axes' backend wants the request client.login() lacks.
    signed_in = client.post(
        reverse("clubs:login"), {"username": account.username, "password": account.password}
    )
    assert signed_in.status_code == 302
    assert client.get("/admin/").status_code == 200
