"""ratings.queries.list_version: the live list's version moves whenever the pool's
ratings are written or a list is published, never on a computation that changes
nothing; a published list's version never moves (issue 14, "render once per version")."""

from __future__ import annotations

import datetime as dt

import pytest

from clubs.models import FederationDiscipline
from ratings import queries, services
from ratings.models import RatingPool
from tests.factories import DisciplineFactory, FederationFactory
from tests.ratings.test_services import confirmed, players_of

pytestmark = pytest.mark.django_db

BASE = dt.datetime(2024, 3, 4, 12, 0, tzinfo=dt.UTC)


def live_version(pool: RatingPool) -> str:
    return queries.list_version(RatingPool.objects.get(pk=pool.pk))


def test_the_live_version_follows_the_services_that_write_ratings() -> None:
    rated = FederationDiscipline.objects.create(
        federation=FederationFactory(), discipline=DisciplineFactory(), rating_system="fibs"
    )
    pool = services.ensure_pool(rated)
    a, b, c = players_of(rated, 3)
    seen = {live_version(pool)}

    first = confirmed(a, b, at=BASE, rated=rated)
    services.recompute_pool(pool)
    assert live_version(pool) not in seen
    seen.add(live_version(pool))

    later = confirmed(b, c, at=BASE + dt.timedelta(days=1), rated=rated)
    assert [o.action for o in services.update_after_match(later.pk)] == ["applied"]
    assert live_version(pool) not in seen
    seen.add(live_version(pool))

    # The history says so already: nothing written, nothing moves.
    assert [o.action for o in services.update_after_match(first.pk)] == ["unchanged"]
    assert live_version(pool) in seen

    # A late result recomputes from it.
    late = confirmed(a, c, at=BASE - dt.timedelta(days=1), rated=rated)
    assert [o.action for o in services.update_after_match(late.pk)] == ["recomputed"]
    assert live_version(pool) not in seen
    seen.add(live_version(pool))

    # Publishing a list moves the live version (the live list shows the change since
    # the latest list); the published list has its own version, which never moves.
    day = BASE.date() + dt.timedelta(days=3)
    published = services.publish_list(pool, day, by=None)
    assert live_version(pool) not in seen
    fixed = queries.list_version(pool, published)
    assert fixed != live_version(pool)
    services.recompute_pool(pool)
    assert queries.list_version(RatingPool.objects.get(pk=pool.pk), published) == fixed
    assert queries.list_version(pool, queries.published_list(pool, day)) == fixed


def test_pools_have_versions_of_their_own() -> None:
    one, two = (
        services.ensure_pool(
            FederationDiscipline.objects.create(
                federation=FederationFactory(), discipline=DisciplineFactory()
            )
        )
        for _ in range(2)
    )
    assert queries.list_version(one) != queries.list_version(two)
