"""Nobody ever sees a result the rules say is hidden because of the cache (issue 14).

With a real cache (Django's local memory cache), those who see everything render
the public pages and the API first, filling the cache; then the public and a
player of another table ask for the same addresses: a silent round's results and
the unpublished standings stay hidden from them, whether the page is rendered or
revalidated with someone else's ETag.  Once the organizer publishes, the version
moves and everybody sees them.  Written against addresses and what they show, so
it holds however the pages cut their fragments.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments.test_result_visibility import standings_seen
from tests.tournaments.test_silent_rounds import (
    api,
    as_user,
    committing,  # noqa: F401 (a fixture)
    event,  # noqa: F401 (a fixture)
    seen_result,
)
from tournaments import services
from tournaments.models import Round, StandingsSnapshot, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager", "local_memory_cache")]


@pytest.fixture
def local_memory_cache(settings: Any) -> None:
    """A cache that keeps what it is given, whatever CACHE_URL says in this environment,
    and whole pages kept for anonymous visitors (base.pagecache: one process, so its
    own memory is a shared cache)."""
    settings.PAGE_CACHE_TIMEOUT = 300
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "cache-safety",
        }
    }
    from django.core.cache import cache

    cache.clear()


def addresses(t: Tournament, silent: Round) -> dict[str, str]:
    """The public pages and endpoints that show the silent round or the standings."""
    fed, slug = t.federation.slug, t.slug
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=2)
    return {
        "tournament page": reverse("tournaments:public", args=[fed, slug]),
        "round page": reverse("tournaments:public_round", args=[fed, slug, "main", silent.number]),
        "standings page": reverse("tournaments:public_standings", args=[fed, slug]),
        "api pairings": f"/api/pairings/?round={silent.pk}",
        "api standings": f"/api/tournaments/{t.pk}/standings/",
        "api snapshot": f"/api/standings/{snapshot.pk}/",
    }


def fetch(client: Client, url: str, etag: str | None = None) -> Any:
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    if url.startswith("/api/"):
        headers["HTTP_ACCEPT"] = "application/json"
    return client.get(url, HTTP_ACCEPT_LANGUAGE="en", **headers)


def shows_hidden(body: str) -> bool:
    """Whether a page or an answer shows the standings after the silent round."""
    return "After round 2" in body or '"after_round":2' in body.replace(" ", "")


def test_the_cache_never_shows_a_hidden_result(
    event: dict[str, Any],  # noqa: F811
    committing: Any,  # noqa: F811
) -> None:
    t, match, silent = event["t"], event["match"], event["silent"]
    urls = addresses(t, silent)

    # Those who run the tournament warm every cache first, and see everything.
    staff_tags: dict[str, str] = {}
    for who in ("organizer", "arbiter"):
        client = as_user(event[who])
        seen = seen_result(client, match, t, silent)
        assert seen["tournament page"] and seen["api pairings"], (who, seen)
        assert standings_seen(client, t)["api tournament"] == 2
        for name, url in urls.items():
            answer = fetch(client, url)
            assert answer.status_code == 200, (who, name, answer.status_code)
            if answer.has_header("ETag"):
                staff_tags[name] = answer["ETag"]
    assert {"api pairings", "api standings", "api snapshot"} <= set(staff_tags)

    # Then the public and a player of another table: hidden, rendered or revalidated.
    for who in ("anonymous", "other_player", "stranger"):
        client = as_user(None if who == "anonymous" else event[who])
        for _visit in range(2):  # the second visit is served from what the first cached
            seen = seen_result(client, match, t, silent)
            assert not seen["tournament page"] and not seen["api pairings"], (who, seen)
            standings = standings_seen(client, t)
            assert standings["api tournament"] == 1 and standings["public page"] == 1, standings
            for name, url in urls.items():
                answer = fetch(client, url)
                body = answer.content.decode()
                assert answer.status_code in (200, 404), (who, name, answer.status_code)
                assert not shows_hidden(body), (who, name)
        for name, etag in staff_tags.items():
            answer = fetch(client, urls[name], etag)
            assert answer.status_code != 304, (who, name)
            assert not shows_hidden(answer.content.decode()), (who, name)

    # The public's own reload is a 304 while nothing changed...
    anonymous = as_user(None)
    first = fetch(anonymous, urls["api pairings"])
    assert fetch(anonymous, urls["api pairings"], first["ETag"]).status_code == 304
    # ...and not once the organizer publishes: the version moved, everyone sees it.
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=2)
    with committing():  # its commit also drops the pages kept for anonymous visitors
        services.publish_standings(snapshot, by=event["admin"])
    again = fetch(anonymous, urls["api pairings"], first["ETag"])
    assert again.status_code == 200
    for who in ("anonymous", "other_player", "stranger"):
        client = as_user(None if who == "anonymous" else event[who])
        seen = seen_result(client, match, t, silent)
        assert seen["tournament page"] and seen["api pairings"], (who, seen)
        standings = standings_seen(client, t)
        assert standings["api tournament"] == 2 and standings["public page"] == 2, standings
        page = fetch(client, urls["standings page"]).content.decode()
        assert "After round 2" in page, who
    answer = api(anonymous, urls["api snapshot"])
    assert answer.status_code == 200 and answer.json()["after_round"] == 2


def test_an_address_taken_over_by_another_tournament_shows_the_newcomer(
    client: Client,
    committing: Any,  # noqa: F811
) -> None:
    """The public pages remember in each process which tournament an address names
    (one query a page); when the address passes to another tournament, its page shows
    the newcomer, and the newcomer's changes show at once."""
    from tests.tournaments import builders
    from tournaments.models import Tournament as T

    federation, admin, _discipline = builders.federation_with_admin()
    federation.is_public = True
    federation.save(update_fields=["is_public"])
    first = builders.tournament(
        4, "swiss", federation=federation, by=admin, start=False, rounds_planned=2
    )
    first = services.update_tournament(first, by=admin, name="The First Open")
    address = reverse("tournaments:public", args=[federation.slug, first.slug])
    assert "The First Open" in client.get(address).content.decode()

    old_slug = first.slug
    second = builders.tournament(
        4, "swiss", federation=federation, by=admin, start=False, rounds_planned=2
    )
    with committing():
        services.update_tournament(first, by=admin, slug=f"{old_slug}-moved")
        services.update_tournament(second, by=admin, slug=old_slug, name="The Second Open")
    page = client.get(address).content.decode()
    assert "The Second Open" in page and "The First Open" not in page

    with committing():
        services.update_tournament(
            T.objects.get(pk=second.pk), by=admin, name="The Second Open, renamed"
        )
    assert "The Second Open, renamed" in client.get(address).content.decode()
