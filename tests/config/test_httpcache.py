"""base.httpcache: fragments rendered once per key and language; ETags that answer 304."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import translation

from base.httpcache import etag_response, fragment


class Renderer:
    """A render callable that counts its calls."""

    def __init__(self, html: str) -> None:
        self.html = html
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.html


def test_fragment_renders_once_per_key() -> None:
    render = Renderer("<p>round 3</p>")
    first = fragment(("t-round", 7, 1, "public"), render)
    second = fragment(("t-round", 7, 1, "public"), render)
    assert first == second == "<p>round 3</p>"
    assert render.calls == 1
    assert hasattr(second, "__html__")  # safe: the template does not escape it again


def test_a_new_version_or_viewer_key_renders_again() -> None:
    render = Renderer("<p>x</p>")
    fragment(("t-round", 7, 1, "public"), render)
    fragment(("t-round", 7, 2, "public"), render)
    fragment(("t-round", 7, 2, "staff"), render)
    assert render.calls == 3
    fragment(("t-round", 7, 2, "staff"), render)
    assert render.calls == 3


def test_the_key_includes_the_language() -> None:
    english, russian = Renderer("Round"), Renderer("Тур")
    with translation.override("en"):
        assert fragment(("label",), english) == "Round"
    with translation.override("ru"):
        assert fragment(("label",), russian) == "Тур"
        assert fragment(("label",), russian) == "Тур"
    with translation.override("en"):
        assert fragment(("label",), russian) == "Round"
    assert (english.calls, russian.calls) == (1, 1)


def test_a_timeout_of_zero_keeps_nothing() -> None:
    render = Renderer("<p>x</p>")
    fragment(("short",), render, timeout=0)
    fragment(("short",), render, timeout=0)
    assert render.calls == 2


class Builder:
    def __init__(self, status: int = 200) -> None:
        self.calls = 0
        self.status = status

    def __call__(self) -> HttpResponse:
        self.calls += 1
        return HttpResponse("standings", status=self.status)


def get(user: Any = None, **headers: str) -> Any:
    request = RequestFactory().get("/f/x/t/y/", headers=headers)
    request.user = user if user is not None else AnonymousUser()
    return request


def test_etag_response_builds_with_an_etag_then_answers_304_without_building() -> None:
    build = Builder()
    response = etag_response(get(), ("t-standings", 7, 3, "public"), build)
    assert response.status_code == 200 and build.calls == 1
    etag = response["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert response["Cache-Control"] == "private, no-cache"
    assert {"Cookie", "Accept-Language"} <= {v.strip() for v in response["Vary"].split(",")}

    again = etag_response(get(If_None_Match=etag), ("t-standings", 7, 3, "public"), build)
    assert again.status_code == 304 and build.calls == 1
    assert again["ETag"] == etag
    # A weak form of the same tag, or one among others, matches too (RFC 9110).
    listed = etag_response(
        get(If_None_Match=f'"old", W/{etag}'), ("t-standings", 7, 3, "public"), build
    )
    assert listed.status_code == 304 and build.calls == 1


def test_a_new_version_builds_again() -> None:
    build = Builder()
    etag = etag_response(get(), ("t-standings", 7, 3, "public"), build)["ETag"]
    response = etag_response(get(If_None_Match=etag), ("t-standings", 7, 4, "public"), build)
    assert response.status_code == 200 and build.calls == 2
    assert response["ETag"] != etag


@pytest.mark.django_db
def test_different_users_get_different_etags(django_user_model: Any) -> None:
    ann = django_user_model.objects.create_user("ann", password="x")
    bob = django_user_model.objects.create_user("bob", password="x")
    parts = ("t-pairings", 7, 3, "public")
    tags = {etag_response(get(user), parts, Builder())["ETag"] for user in (ann, bob, None)}
    assert len(tags) == 3
    ann_tag = etag_response(get(ann), parts, Builder())["ETag"]
    build = Builder()
    assert etag_response(get(bob, If_None_Match=ann_tag), parts, build).status_code == 200
    assert build.calls == 1


def test_the_etag_depends_on_the_language() -> None:
    parts = ("t-pairings", 7, 3, "public")
    with translation.override("en"):
        english = etag_response(get(), parts, Builder())["ETag"]
    with translation.override("ru"):
        assert etag_response(get(), parts, Builder())["ETag"] != english


def test_an_error_gets_no_etag() -> None:
    response = etag_response(get(), ("t", 1), Builder(status=404))
    assert response.status_code == 404 and not response.has_header("ETag")


def test_a_write_is_never_answered_304() -> None:
    build = Builder()
    etag = etag_response(get(), ("t", 1), build)["ETag"]
    request = RequestFactory().post("/f/x/t/y/", headers={"If-None-Match": etag})
    request.user = AnonymousUser()
    assert etag_response(request, ("t", 1), build).status_code == 200
    assert build.calls == 2
