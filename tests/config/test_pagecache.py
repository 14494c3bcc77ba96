"""Whole public pages kept for anonymous visitors (base.pagecache, issue 14).

A kept page costs one query (its version) and is served only while that version
holds; signed-in visitors, visitors with a session or a message waiting, other
languages and pages that set a cookie always go the whole way."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from base import pagecache
from clubs import services as clubs_services
from tests.factories import UserFactory
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments.test_cache_safety import local_memory_cache  # noqa: F401 (a fixture)
from tests.tournaments.test_public_pages_sized import swiss
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager", "local_memory_cache")]


@pytest.fixture
def open_swiss(settings: Any) -> tuple[Tournament, Any]:
    # Every test here runs in one process: its own memory is a shared cache.
    settings.PAGE_CACHE_TIMEOUT = 300
    return swiss(8, 1)


def page(t: Tournament, name: str = "public", *args: Any) -> str:
    return reverse(f"tournaments:{name}", args=[t.federation.slug, t.slug, *args])


KEPT = "kept"


def visit(client: Client, address: str, **headers: Any) -> tuple[Any, str | int]:
    """The answer, and KEPT when it was served from a kept page (no query at all),
    else how many SQL queries it cost."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(address, HTTP_ACCEPT_LANGUAGE=headers.pop("lang", "en"), **headers)
    return response, KEPT if not queries.captured_queries else len(queries.captured_queries)


def test_a_second_anonymous_visit_is_served_kept_for_one_query(open_swiss: Any) -> None:
    t, _admin = open_swiss
    for address in (page(t), page(t, "public_standings"), page(t, "public_round", "main", 2)):
        first, made = visit(Client(), address)
        again, served = visit(Client(), address)
        assert first.status_code == again.status_code == 200
        assert made != KEPT
        # Nothing is read: the view, session and user are skipped.
        assert served == KEPT, address
        assert again.content == first.content
        assert again["ETag"] == first["ETag"]
        assert again["Content-Language"] == "en"
        assert "csrfmiddlewaretoken" not in again.content.decode()


def test_a_kept_page_is_not_served_once_its_version_moves(
    open_swiss: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t, admin = open_swiss
    address = page(t)
    before, _ = visit(Client(), address)
    assert "Renamed open" not in before.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(t, by=admin, name="Renamed open")
    after, cost = visit(Client(), address)
    assert "Renamed open" in after.content.decode()
    assert cost != KEPT


def test_a_hidden_federation_is_not_served_from_what_was_kept(
    open_swiss: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t, _admin = open_swiss
    address = page(t)
    assert visit(Client(), address)[0].status_code == 200
    staff = UserFactory(is_staff=True, is_superuser=True)
    with django_capture_on_commit_callbacks(execute=True):
        clubs_services.update_federation(t.federation, by=staff, is_public=False)
    assert visit(Client(), address)[0].status_code == 404


def test_a_page_kept_while_a_change_was_committing_is_not_served_after_it(
    open_swiss: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The token is read before the page's data: an answer made from data older than
    a change that then commits carries a token that the change replaces."""
    t, admin = open_swiss
    request = RequestFactory().get(page(t))
    request._page_making = pagecache._Making("page:test")  # as the middleware does
    assert pagecache.depends_on(request, "tournament", t.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(t, by=admin, name="Renamed while making")
    stale = request._page_making.tokens[0]
    current = cache.get(stale[0])
    assert current is not None and current != stale[1]


def test_a_reload_with_the_etag_is_a_304_from_the_kept_page(open_swiss: Any) -> None:
    t, _admin = open_swiss
    first, _ = visit(Client(), page(t))
    again, cost = visit(Client(), page(t), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert cost == KEPT
    assert again["ETag"] == first["ETag"]


def test_each_language_is_kept_apart(open_swiss: Any) -> None:
    t, _admin = open_swiss
    english, _ = visit(Client(), page(t), lang="en")
    russian, _ = visit(Client(), page(t), lang="ru")
    russian_again, cost = visit(Client(), page(t), lang="ru")
    assert cost == KEPT
    assert russian["Content-Language"] == russian_again["Content-Language"] == "ru"
    assert russian_again.content == russian.content != english.content
    assert "Standings" in english.content.decode()
    assert (
        "Положение" in russian_again.content.decode()
        or "Турнирная" in russian_again.content.decode()
    )


def test_a_signed_in_visitor_never_gets_nor_leaves_a_kept_page(open_swiss: Any) -> None:
    t, _admin = open_swiss
    user = UserFactory(username="visitor-with-name")
    signed_in = Client()
    signed_in.force_login(user)
    first, _ = visit(signed_in, page(t))
    assert "visitor-with-name" in first.content.decode()
    # Nothing of the signed-in page was kept for the public...
    anonymous, _ = visit(Client(), page(t))
    assert "visitor-with-name" not in anonymous.content.decode()
    # ...and the signed-in visitor is not served the public's page.
    again, cost = visit(signed_in, page(t))
    assert "visitor-with-name" in again.content.decode()
    assert cost != KEPT


def test_a_visitor_with_a_session_or_a_message_goes_the_whole_way(open_swiss: Any) -> None:
    t, _admin = open_swiss
    visit(Client(), page(t))
    for cookie in ("sessionid", "messages"):
        client = Client()
        client.cookies[cookie] = "something"
        _answer, cost = visit(client, page(t))
        assert cost != KEPT, cookie


def test_a_page_that_did_not_opt_in_is_never_kept(open_swiss: Any) -> None:
    t, _admin = open_swiss
    address = reverse("tournaments:public_find", args=[t.federation.slug, t.slug])
    visit(Client(), address, QUERY_STRING="q=zzz")
    _answer, cost = visit(Client(), address, QUERY_STRING="q=zzz")
    assert cost != KEPT


def test_an_answer_that_sets_a_cookie_is_not_kept(open_swiss: Any, rf: Any) -> None:
    from django.contrib.auth.models import AnonymousUser
    from django.http import HttpResponse

    t, _admin = open_swiss

    def view(request: Any) -> HttpResponse:
        request.user = AnonymousUser()
        pagecache.depends_on(request, "tournament", t.pk)
        response = HttpResponse("a page")
        response.set_cookie("csrftoken", "one-visitor's")
        return response

    calls = []

    def counted(request: Any) -> HttpResponse:
        calls.append(request)
        return view(request)

    middleware = pagecache.AnonymousPageCache(counted)
    assert middleware(rf.get("/x")).content == b"a page"
    assert middleware(rf.get("/x")).content == b"a page"
    # Not served kept: the view made both.
    assert len(calls) == 2


def test_the_page_cache_can_be_turned_off(open_swiss: Any, settings: Any) -> None:
    settings.PAGE_CACHE_TIMEOUT = 0
    t, _admin = open_swiss
    visit(Client(), page(t))
    _answer, cost = visit(Client(), page(t))
    assert cost != KEPT


def test_a_cache_that_fails_only_costs_the_whole_way(open_swiss: Any, settings: Any) -> None:
    settings.CACHES = {
        "default": {"BACKEND": "tests.config.test_pagecache.BrokenCache", "LOCATION": "broken"}
    }
    t, _admin = open_swiss
    for _ in range(2):
        answer, _cost = visit(Client(), page(t))
        assert answer.status_code == 200


def test_the_language_can_be_changed_without_a_token() -> None:
    client = Client(enforce_csrf_checks=True)
    answer = client.post(reverse("set_language"), {"language": "ru", "next": "/"})
    assert answer.status_code == 302
    assert answer.cookies["django_language"].value == "ru"
    # A next address on another site is not followed.
    away = client.post(
        reverse("set_language"), {"language": "en", "next": "https://elsewhere.example/"}
    )
    assert away["Location"] == "/"


from django.core.cache.backends.locmem import LocMemCache  # noqa: E402


class BrokenCache(LocMemCache):
    """A cache whose server is down: every read and write raises."""

    def get(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    def set(self, *args: Any, **kwargs: Any) -> None:
        raise ConnectionError("cache down")

    def add(self, *args: Any, **kwargs: Any) -> bool:
        raise ConnectionError("cache down")


def test_only_the_addresses_of_pages_are_kept(open_swiss: Any) -> None:
    """A search or a made-up parameter is made the whole way each time: a visitor
    cannot fill the cache with one answer per address they invent."""
    t, _admin = open_swiss
    for query in ("page=1", "page=1&section=W"):
        visit(Client(), page(t, "public_standings") + "?" + query)
        assert visit(Client(), page(t, "public_standings") + "?" + query)[1] == KEPT, query
    for query in ("utm_source=x", "page=1&x=2", "page=" + "1" * 20):
        visit(Client(), page(t, "public_standings") + "?" + query)
        assert visit(Client(), page(t, "public_standings") + "?" + query)[1] != KEPT, query
