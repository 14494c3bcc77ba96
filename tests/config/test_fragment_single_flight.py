"""base.httpcache.fragment on a miss: one request renders while the others wait for
its result (a bounded wait), and a failing cache only costs the caching.

No test waits on a clock: the pauses of a waiter go through ``httpcache._sleep``,
which the ``pauses`` fixture replaces by a recorder that may act on the cache the
way another request would."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.http import Http404
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from base import httpcache
from base.httpcache import fragment, fragment_cache_key, fragment_lock_key

KEY = ("t-standings", 7, 3, "public")
ANOTHER_HOLDER = "another request's token"


class Renderer:
    """A render callable that counts its calls, and may do something while rendering."""

    def __init__(self, html: str, during: Callable[[], None] | None = None) -> None:
        self.html = html
        self.during = during
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.during is not None:
            self.during()
        return self.html


class Pauses:
    """Stands in for ``httpcache._sleep``: records the pauses asked for and calls
    ``on_pause(n)`` at the n-th one (another request's doing while this one waits)."""

    def __init__(self) -> None:
        self.taken: list[float] = []
        self.on_pause: Callable[[int], None] | None = None

    def __call__(self, seconds: float) -> None:
        self.taken.append(seconds)
        if self.on_pause is not None:
            self.on_pause(len(self.taken))


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> Pauses:
    recorder = Pauses()
    monkeypatch.setattr(httpcache, "_sleep", recorder)
    return recorder


def held_by_another_request() -> None:
    assert cache.add(fragment_lock_key(KEY), ANOTHER_HOLDER, httpcache.RENDER_LOCK_SECONDS)


def test_a_miss_renders_once_stores_and_frees_the_lock(pauses: Pauses) -> None:
    render = Renderer("<table>standings</table>")
    assert fragment(KEY, render) == "<table>standings</table>"
    assert render.calls == 1
    assert cache.get(fragment_cache_key(KEY)) == "<table>standings</table>"
    assert cache.get(fragment_lock_key(KEY)) is None
    assert pauses.taken == []
    # The lock is taken while rendering, by this request.
    seen: list[Any] = []
    other = ("t-standings", 7, 4, "public")
    fragment(
        other, Renderer("<table/>", during=lambda: seen.append(cache.get(fragment_lock_key(other))))
    )
    assert len(seen) == 1 and isinstance(seen[0], str) and seen[0] != ANOTHER_HOLDER


def test_a_waiter_serves_what_the_lock_holder_stores(pauses: Pauses) -> None:
    held_by_another_request()

    def holder_finishes(poll: int) -> None:
        if poll == 3:
            cache.set(fragment_cache_key(KEY), "<table>by the holder</table>")

    pauses.on_pause = holder_finishes
    render = Renderer("<table>by the waiter</table>")
    html = fragment(KEY, render)
    assert html == "<table>by the holder</table>"
    assert hasattr(html, "__html__")
    assert render.calls == 0
    assert len(pauses.taken) == 3
    # The waiter never touches the holder's lock.
    assert cache.get(fragment_lock_key(KEY)) == ANOTHER_HOLDER


def test_a_waiter_whose_wait_runs_out_renders_itself(pauses: Pauses) -> None:
    held_by_another_request()  # and it never stores: too slow, or died
    render = Renderer("<table>by the waiter</table>")
    assert fragment(KEY, render) == "<table>by the waiter</table>"
    assert render.calls == 1
    # The wait is bounded, backs off from a short first pause, and never pauses long.
    assert sum(pauses.taken) == pytest.approx(httpcache.RENDER_WAIT_SECONDS)
    assert pauses.taken[0] == httpcache.FIRST_POLL_SECONDS
    assert pauses.taken[:-1] == sorted(pauses.taken[:-1])
    assert max(pauses.taken) == httpcache.MAX_POLL_SECONDS
    assert len(pauses.taken) < 50
    # What it rendered serves the others; the holder's lock is left to its holder.
    assert cache.get(fragment_cache_key(KEY)) == "<table>by the waiter</table>"
    assert cache.get(fragment_lock_key(KEY)) == ANOTHER_HOLDER


def test_a_waiter_takes_over_when_the_holder_fails(pauses: Pauses) -> None:
    held_by_another_request()

    def holder_fails(poll: int) -> None:
        if poll == 2:  # its render raised: it freed the lock and stored nothing
            cache.delete(fragment_lock_key(KEY))

    pauses.on_pause = holder_fails
    render = Renderer("<table>by the waiter</table>")
    assert fragment(KEY, render) == "<table>by the waiter</table>"
    assert render.calls == 1
    assert len(pauses.taken) == 2
    assert cache.get(fragment_cache_key(KEY)) == "<table>by the waiter</table>"
    assert cache.get(fragment_lock_key(KEY)) is None


def test_an_exception_from_render_reaches_the_caller_and_frees_the_lock(pauses: Pauses) -> None:
    def missing_page() -> str:
        raise Http404("No such page.")

    with pytest.raises(Http404):
        fragment(KEY, missing_page)
    assert cache.get(fragment_lock_key(KEY)) is None
    assert cache.get(fragment_cache_key(KEY)) is None
    # The next request renders at once: nothing holds it back.
    render = Renderer("<table>found</table>")
    assert fragment(KEY, render) == "<table>found</table>"
    assert render.calls == 1 and pauses.taken == []


def test_a_lock_taken_again_after_expiring_is_left_to_its_new_holder(pauses: Pauses) -> None:
    def lock_expires_and_another_takes_it() -> None:
        cache.set(fragment_lock_key(KEY), ANOTHER_HOLDER)

    render = Renderer("<table>slow</table>", during=lock_expires_and_another_takes_it)
    assert fragment(KEY, render) == "<table>slow</table>"
    assert cache.get(fragment_lock_key(KEY)) == ANOTHER_HOLDER


class UnreachableRedis(BaseCache):
    """A cache backend whose server does not answer, raising what Django's
    RedisCache raises then."""

    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(params)

    def _down(self, *args: Any, **kwargs: Any) -> Any:
        raise RedisConnectionError("Error 111 connecting to cache:6379. Connection refused.")

    get = add = set = delete = _down


class RefusesValues(LocMemCache):
    """A working cache that refuses to store values (the lock's ``add`` works)."""

    def set(self, *args: Any, **kwargs: Any) -> None:
        raise RedisConnectionError("Connection reset by peer")


def backend(cls: type) -> dict[str, Any]:
    return {"default": {"BACKEND": f"{__name__}.{cls.__name__}", "LOCATION": cls.__name__}}


def test_an_unreachable_cache_only_costs_the_caching(
    pauses: Pauses, caplog: pytest.LogCaptureFixture
) -> None:
    render = Renderer("<table>standings</table>")
    with override_settings(CACHES=backend(UnreachableRedis)), caplog.at_level(logging.WARNING):
        assert fragment(KEY, render) == "<table>standings</table>"
        assert render.calls == 1
        warnings = [r for r in caplog.records if r.name == "base.httpcache"]
        assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
        assert fragment(KEY, render) == "<table>standings</table>"
        assert render.calls == 2
    assert pauses.taken == []


def test_a_value_the_cache_refuses_still_serves_and_frees_the_lock(
    pauses: Pauses, caplog: pytest.LogCaptureFixture
) -> None:
    render = Renderer("<table>standings</table>")
    with override_settings(CACHES=backend(RefusesValues)), caplog.at_level(logging.WARNING):
        assert fragment(KEY, render) == "<table>standings</table>"
        assert render.calls == 1
        assert cache.get(fragment_lock_key(KEY)) is None
        assert cache.get(fragment_cache_key(KEY)) is None
        assert len([r for r in caplog.records if r.name == "base.httpcache"]) == 1
