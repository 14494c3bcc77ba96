"""Publishing a rating list: a preview first (players, the top ten, the matches
counted and when they were played), then a confirmation of exactly what was
previewed; an empty list is never published, and the public page never
shows an empty list by default."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import pytest
from django.utils import timezone

from clubs.models import FederationDiscipline, Player
from games.models import Match
from ratings import services
from ratings.models import RatingList, RatingPool
from tests.factories import PlayerFactory
from tests.ratings.pages_data import make_list, make_pool, make_ratings
from tests.ratings.test_pages import EN, page, pool_url
from tests.ratings.test_services import confirmed, players_of, pool_of, rated_discipline
from tests.world import World

pytestmark = pytest.mark.django_db

# Noon UTC: the same local day in every time zone the project is run in (Europe/Moscow).
DAY = dt.datetime(2024, 3, 4, 12, 0, tzinfo=dt.UTC)


def local_day(moment: dt.datetime) -> dt.date:
    return timezone.localtime(moment).date()


@dataclass
class Season:
    rated: FederationDiscipline
    pool: RatingPool
    players: list[Player]
    matches: list[Match]


@pytest.fixture
def season(world: World) -> Season:
    """A FIBS pool of the world's federation (its admin publishes) with twelve players:
    eleven matches over eleven days from DAY."""
    rated = FederationDiscipline.objects.create(
        federation=world.federation, discipline=world.discipline, rating_system="fibs"
    )
    pool = pool_of(rated)
    players = players_of(rated, 12)
    matches = [
        confirmed(players[0], players[n], at=DAY + dt.timedelta(days=n - 1), rated=rated)
        for n in range(1, 12)
    ]
    services.recompute_pool(pool)
    return Season(rated=rated, pool=pool, players=players, matches=matches)


# --- The service -----------------------------------------------------------------------


def test_the_preview_counts_players_top_ten_and_matches_and_saves_nothing(world, season) -> None:
    pool = season.pool
    date = local_day(DAY) + dt.timedelta(days=6)  # the first six matches were played before
    preview = services.preview_list(pool, date, by=world.fed_admin)
    assert preview.players == 7  # the winner of all and six opponents
    assert preview.matches == 6 and preview.later_matches == 5
    assert preview.first_played == DAY
    assert preview.last_played == DAY + dt.timedelta(days=5)
    assert len(preview.top) == 7
    (first_entry, first_player), *_rest = preview.top
    assert first_entry.rank == 1 and first_player == season.players[0]
    assert not RatingList.objects.exists()

    everything = services.preview_list(pool, local_day(DAY) + dt.timedelta(days=30), by=None)
    assert everything.players == 12 and len(everything.top) == 10  # the top ten only
    assert [entry.rank for entry, _player in everything.top] == sorted(
        entry.rank for entry, _player in everything.top
    )

    published = services.publish_list(
        pool, date, by=world.fed_admin, expected_digest=preview.digest
    )
    assert published.entries.count() == 7


def test_an_empty_list_is_refused_with_the_reason(world, season) -> None:
    pool = season.pool
    first_day = local_day(DAY)  # nothing was played before the first match's day
    preview = services.preview_list(pool, first_day, by=world.fed_admin)
    assert preview.is_empty and preview.matches == 0 and preview.later_matches == 11
    with pytest.raises(services.EmptyRatingList) as refused:
        services.publish_list(pool, first_day, by=world.fed_admin)
    message = " ".join(refused.value.messages)
    assert "would be empty" in message and "date it later" in message
    assert not RatingList.objects.exists()


def test_a_pool_with_no_match_at_all_publishes_nothing() -> None:
    pool = pool_of(rated_discipline())
    with pytest.raises(services.EmptyRatingList):
        services.publish_list(pool, timezone.localdate(), by=None)
    assert not RatingList.objects.exists()


def test_confirming_a_stale_preview_publishes_nothing_and_returns_the_new_preview(
    world, season
) -> None:
    pool = season.pool
    date = local_day(DAY) + dt.timedelta(days=6)
    seen = services.preview_list(pool, date, by=world.fed_admin)
    # Meanwhile a late result, played before the list's date, is confirmed and rated.
    newcomer = PlayerFactory(federation=season.rated.federation)
    confirmed(newcomer, season.players[11], at=DAY + dt.timedelta(hours=1), rated=season.rated)
    services.recompute_pool(pool)
    with pytest.raises(services.StalePreview) as stale:
        services.publish_list(pool, date, by=world.fed_admin, expected_digest=seen.digest)
    assert not RatingList.objects.exists()
    fresh = stale.value.preview
    assert (fresh.players, fresh.matches) == (seen.players + 2, seen.matches + 1)
    assert fresh.digest != seen.digest
    assert "changed since the preview" in stale.value.messages[0]
    published = services.publish_list(pool, date, by=world.fed_admin, expected_digest=fresh.digest)
    assert published.entries.count() == fresh.players


def test_the_default_date_counts_every_rated_match_so_far(season) -> None:
    pool = season.pool
    last = season.matches[-1].finished_at
    default = services.default_list_date(pool)
    assert default == local_day(last) + dt.timedelta(days=1)  # the day after the latest
    preview = services.preview_list(pool, default, by=None)
    assert preview.matches == 11 and preview.later_matches == 0 and preview.players == 12

    # A match played today: a list dated today counts it only from tomorrow, and the
    # default is never in the future.
    confirmed(season.players[1], season.players[2], at=timezone.now(), rated=season.rated)
    services.recompute_pool(pool)
    assert services.default_list_date(pool) == timezone.localdate()
    assert services.preview_list(pool, timezone.localdate(), by=None).later_matches == 1

    empty = pool_of(rated_discipline())
    assert services.default_list_date(empty) == timezone.localdate()


def test_the_default_date_is_not_before_the_latest_published_list(world, season) -> None:
    pool = season.pool
    after_last_match = local_day(season.matches[-1].finished_at) + dt.timedelta(days=1)
    later = after_last_match + dt.timedelta(days=20)
    services.publish_list(pool, later, by=world.fed_admin)
    assert services.default_list_date(pool) == later + dt.timedelta(days=1)


def test_the_monthly_task_skips_a_list_that_would_be_empty() -> None:
    rated = rated_discipline("glicko2", glicko_period_days=7)
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    confirmed(one, two, at=DAY, rated=rated)  # Monday 4 March: its period ends on the 11th
    services.recompute_pool(pool)
    assert services.publish_monthly(dt.date(2024, 3, 10)) == []  # not a crash, not an empty list
    assert not RatingList.objects.exists()
    assert [lst.pool_id for lst in services.publish_monthly(dt.date(2024, 4, 1))] == [pool.pk]


# --- The pages -------------------------------------------------------------------------


def post(client, pool, data: dict[str, str]):  # type: ignore[no-untyped-def]
    return client.post(pool_url(pool, "ratings:publish"), data, **EN)


def test_publishing_from_the_page_is_a_preview_then_a_confirmation(client, world, season) -> None:
    pool = season.pool
    client.force_login(world.fed_admin)
    html = page(client, pool_url(pool))
    default = services.default_list_date(pool).isoformat()
    assert f'value="{default}"' in html  # the form proposes the day after the latest match
    assert "Preview the list" in html

    date = (local_day(DAY) + dt.timedelta(days=6)).isoformat()
    preview = post(client, pool, {"date": date})
    assert preview.status_code == 200 and not RatingList.objects.exists()
    shown = preview.content.decode()
    assert re.search(r"<dt>Players on the list</dt><dd>7</dd>", shown)
    assert re.search(r"<dt>Rated matches counted</dt><dd>6</dd>", shown)
    assert "from 03/04/2024 to 03/09/2024" in shown
    assert shown.count("<tr>") == 1 + 7  # the header and the seven players
    assert season.players[0].name_native in shown
    digest = preview.context["preview"].digest
    assert f'value="{digest}"' in shown and 'name="step" value="confirm"' in shown

    # The confirmation posts back exactly what the preview page's form holds.
    held = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', shown))
    held.pop("csrfmiddlewaretoken")
    assert held == {"step": "confirm", "date": date, "digest": digest}
    done = post(client, pool, held)
    assert done.status_code == 302
    published = RatingList.objects.get(pool=pool)
    assert published.is_published and published.entries.count() == 7
    assert "is published: 7 players." in page(client, done["Location"])


def test_a_confirmation_after_a_change_shows_the_new_preview(client, world, season) -> None:
    pool = season.pool
    client.force_login(world.fed_admin)
    date = (local_day(DAY) + dt.timedelta(days=6)).isoformat()
    old = post(client, pool, {"date": date}).context["preview"]
    newcomer = PlayerFactory(federation=season.rated.federation)
    confirmed(newcomer, season.players[11], at=DAY, rated=season.rated)
    services.recompute_pool(pool)
    again = post(client, pool, {"step": "confirm", "date": date, "digest": old.digest})
    assert again.status_code == 200
    assert not RatingList.objects.exists()
    html = again.content.decode()
    assert "The list was not published." in html and "changed since the preview" in html
    assert re.search(r"<dt>Players on the list</dt><dd>9</dd>", html)
    assert again.context["preview"].digest != old.digest
    assert f'value="{again.context["preview"].digest}"' in html


def test_an_empty_preview_says_why_and_offers_no_confirmation(client, world, season) -> None:
    pool = season.pool
    client.force_login(world.fed_admin)
    first_day = local_day(DAY).isoformat()
    preview = post(client, pool, {"date": first_day})
    html = preview.content.decode()
    assert preview.status_code == 200
    assert "would be empty" in html and "Publish this list" not in html
    # A hand-made confirmation is refused by the service all the same.
    digest = preview.context["preview"].digest
    refused = post(client, pool, {"step": "confirm", "date": first_day, "digest": digest})
    assert refused.status_code == 302 and refused["Location"] == pool_url(pool)
    assert "would be empty" in page(client, pool_url(pool))
    assert not RatingList.objects.exists()


def test_a_confirmation_needs_the_preview_and_the_permission(client, world, season) -> None:
    pool = season.pool
    date = (local_day(DAY) + dt.timedelta(days=6)).isoformat()
    client.force_login(world.other_fed_admin)  # an admin of another federation
    assert post(client, pool, {"step": "confirm", "date": date, "digest": "x"}).status_code == 403
    client.force_login(world.fed_admin)
    missing = post(client, pool, {"step": "confirm", "date": date})
    assert missing.status_code == 302
    assert "The list was not published: This field is required." in page(client, pool_url(pool))
    assert not RatingList.objects.exists()


def test_the_public_page_never_defaults_to_an_empty_list(client) -> None:
    pool = make_pool()
    one, two = (rating.player for rating in make_ratings(pool, 2))
    # An empty list published before publishing refused them: the live ratings instead.
    make_list(pool, dt.date(2024, 3, 1), [])
    html = page(client, pool_url(pool))
    assert "Live ratings" in html and "Nobody is rated" not in html
    assert one.name_native in html and two.name_native in html
    # With an earlier list that has players, that list, not the later empty one.
    make_list(pool, dt.date(2024, 2, 1), [{"player": one, "rating": 1550.0}])
    response = client.get(pool_url(pool), **EN)
    assert response.context["mode"] == "published"
    assert response.context["rating_list"].date == dt.date(2024, 2, 1)
    assert one.name_native in response.content.decode()


def test_the_api_names_the_latest_list_with_players_as_the_pools_latest(client) -> None:
    pool = make_pool()
    (rating,) = make_ratings(pool, 1)
    listed = make_list(pool, dt.date(2024, 2, 1), [{"player": rating.player, "rating": 1550.0}])
    make_list(pool, dt.date(2024, 3, 1), [])  # empty, published before that was refused
    data = client.get(f"/api/rating-pools/{pool.pk}/", HTTP_ACCEPT="application/json").json()
    assert (data["latest_list"], data["latest_list_date"]) == (listed.pk, "2024-02-01")
