"""The API's pairings and standings carry the tournament's public version as an ETag:
a reload that still holds it costs a 304, a change answers anew (issue 14)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, StandingsSnapshot

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


def get(client: Client, url: str, etag: str | None = None) -> Any:
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(url, HTTP_ACCEPT="application/json", **headers)


def test_pairings_and_standings_answer_304_until_the_tournament_changes(
    django_capture_on_commit_callbacks: Any,
) -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=3)
    with django_capture_on_commit_callbacks(execute=True):
        rnd = builders.play_round(services.pair_next_round(t, by=admin), admin)
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
    client = Client()
    urls = [
        f"/api/pairings/?tournament={t.pk}",
        f"/api/pairings/?round={rnd.pk}",
        f"/api/tournaments/{t.pk}/standings/",
        f"/api/standings/{snapshot.pk}/",
    ]
    tags = {}
    for url in urls:
        answer = get(client, url)
        assert answer.status_code == 200 and answer["Cache-Control"] == "private, no-cache"
        tags[url] = answer["ETag"]
        again = get(client, url, tags[url])
        assert again.status_code == 304 and again.content == b"", url
    assert len(set(tags.values())) == len(urls)
    # Another page of the same list is another answer.
    paged = get(client, f"/api/tournaments/{t.pk}/standings/?page_size=1&page=2")
    assert paged["ETag"] != tags[f"/api/tournaments/{t.pk}/standings/"]

    services.withdraw(Entry.objects.filter(tournament=t).first(), by=admin)
    for url in urls:
        answer = get(client, url, tags[url])
        assert answer.status_code == 200 and answer["ETag"] != tags[url], url


def test_a_list_across_tournaments_has_no_etag() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=3)
    services.pair_next_round(t, by=admin)
    answer = get(Client(), "/api/pairings/")
    assert answer.status_code == 200 and not answer.has_header("ETag")
