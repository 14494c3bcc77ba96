"""Render once per version: cached HTML fragments and conditional responses.

Pages that thousands open at once (a round's pairings, the standings, a rating
list) change only when what they show changes.  The services that write bump a
version (``Tournament.public_version``, ``ratings.queries.list_version``); a
page names what it shows by those versions, and:

- ``fragment(key, render)`` renders a piece of HTML once per key and serves it
  from Django's cache (``CACHES``: Redis in production, a local memory cache by
  default) until the key changes;
- ``etag_response(request, parts, build)`` answers a reload whose ``ETag`` still
  holds with 304, without building the response.

A key is a tuple of plain values (numbers, strings) that MUST name everything the
HTML depends on, including what the viewer may see (for a tournament,
``tournaments.services.visibility.viewer_key``): two requests with equal keys
get the same bytes.  The active language and time zone are added here.

Single flight.  When a version moves (a result entered, a rating written) every
request for the page misses at once, and each would render the same fragment (a
1,000-player standings page or a page of a 10,000-player rating list costs 100 ms
and more) while a round start piles up behind a few gunicorn workers.  So on a miss
only the request that takes the fragment's render lock (``cache.add``, held at most
``RENDER_LOCK_SECONDS`` so that a worker that dies holding it does not keep it)
renders and stores; the others poll the cache, from ``FIRST_POLL_SECONDS`` doubling
up to ``MAX_POLL_SECONDS``, and serve what it stores.  A waiter that finds the lock
free again without a result (the renderer failed: its exception reached its own
caller) takes the lock and renders.  The wait is bounded: after
``RENDER_WAIT_SECONDS`` of pauses a waiter renders by itself, so a slow or dead
renderer costs its waiters at most that long, and nobody ever gets an error or an
empty page for waiting.  The lock is per process with the local memory cache and
shared by every worker with Redis.

The cache is never needed to answer: when it fails (Redis down or unreachable)
``fragment`` logs one warning and renders the page without it.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

from django.contrib import messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from django.utils.safestring import SafeString, mark_safe

logger = logging.getLogger(__name__)

# Bumped when the way keys are built changes, so old entries are never read again.
KEY_SCHEME = 1

# Single flight (see the module's docstring).  The lock outlives any normal render
# (well under a second) many times over, and is short enough that a lock left by a
# worker killed mid-render stops making first requests wait soon after.
RENDER_LOCK_SECONDS = 10
# The longest a request waits for another one's rendering before rendering itself:
# several slow renders long, yet short of what a reader would take for a hung page.
RENDER_WAIT_SECONDS = 3.0
# Polling starts fast (a cheap fragment is ready within milliseconds) and backs off
# so that a slow one costs each waiter a few dozen cache reads, not hundreds.
FIRST_POLL_SECONDS = 0.01
MAX_POLL_SECONDS = 0.1

# How a waiter pauses between polls; tests replace it, so no test waits on a clock.
_sleep = time.sleep

# Every conditional answer is revalidated on each request: a version bump must be
# seen at once, and the answer differs per user and language.
CACHE_CONTROL = "private, no-cache"
VARY = ("Cookie", "Accept-Language")


def digest(parts: tuple[Any, ...]) -> str:
    """A short stable digest of ``parts`` (their ``repr``: a tuple of numbers and
    strings reads the same in every process)."""
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def _rendering_context() -> tuple[str, str]:
    """What every rendered byte also depends on besides the key: language and time zone."""
    return (translation.get_language() or "", timezone.get_current_timezone_name())


def fragment_cache_key(key: tuple[Any, ...]) -> str:
    """The cache key under which ``fragment`` keeps the HTML of ``key`` (for the
    active language and time zone)."""
    return f"fragment:{KEY_SCHEME}:{digest((key, _rendering_context()))}"


T = TypeVar("T")


def lock_key(cache_key: str) -> str:
    """The cache key of the lock the request making ``cache_key``'s value holds."""
    return f"{cache_key}:render-lock"


def fragment_lock_key(key: tuple[Any, ...]) -> str:
    """The cache key of the lock the request rendering ``key``'s fragment holds."""
    return lock_key(fragment_cache_key(key))


class _CacheCalls:
    """The cache as one ``fragment`` call uses it: the first failure of the backend
    (Redis raises its own exceptions, so any exception from a cache call counts) is
    logged once, and the call then goes on without the cache."""

    def __init__(self, cache_key: str) -> None:
        self.cache_key = cache_key
        self.available = True

    def _failed(self, operation: str, error: Exception) -> None:
        if not self.available:
            return
        self.available = False
        logger.warning(
            "Cache %s of %s failed, rendering without the cache: %r",
            operation,
            self.cache_key,
            error,
        )

    def get(self, key: str) -> Any:
        if not self.available:
            return None
        try:
            return cache.get(key)
        except Exception as error:
            self._failed("get", error)
            return None

    def add(self, key: str, value: str, timeout: int) -> bool | None:
        """True when ``key`` was added, False when it was there, None when the cache failed."""
        if not self.available:
            return None
        try:
            return bool(cache.add(key, value, timeout))
        except Exception as error:
            self._failed("add", error)
            return None

    def set(self, key: str, value: Any, timeout: int | None) -> None:
        if not self.available:
            return
        try:
            if timeout is None:
                cache.set(key, value)
            else:
                cache.set(key, value, timeout)
        except Exception as error:
            self._failed("set", error)

    def delete_if(self, key: str, value: str) -> None:
        """Delete ``key`` if it still holds ``value``.  Best effort: read and delete are
        two calls, and a lock that expired and was taken again in between is dropped
        (its holder then only renders beside one more request).  Tried even after a
        failure (a value the cache refused to store), so that waiters are not kept
        until the lock expires."""
        try:
            if cache.get(key) == value:
                cache.delete(key)
        except Exception as error:
            self._failed("delete", error)


def _poll_pauses() -> Iterator[float]:
    """The pauses of a waiter: doubling from ``FIRST_POLL_SECONDS`` up to
    ``MAX_POLL_SECONDS``, together ``RENDER_WAIT_SECONDS`` (counted as the sum of
    the pauses asked for, not a clock: a pause overslept on a busy machine costs
    a little more than the bound)."""
    waited = 0.0
    pause = FIRST_POLL_SECONDS
    while waited < RENDER_WAIT_SECONDS:
        step = min(pause, RENDER_WAIT_SECONDS - waited)
        yield step
        waited += step
        pause = min(pause * 2, MAX_POLL_SECONDS)


def fragment(
    key: tuple[Any, ...], render: Callable[[], str], timeout: int | None = None
) -> SafeString:
    """The HTML ``render()`` returns, rendered once per ``key`` (and language) and then
    served from the cache.  ``timeout``: seconds to keep it (None: the cache's
    ``TIMEOUT``; an old version is never asked for again, so it only has to expire).
    Made by ``single_flight``."""
    html = single_flight(fragment_cache_key(key), lambda: str(render()), timeout)
    # The fragment is HTML our templates escaped when they rendered it.
    return mark_safe(html)


def single_flight(cache_key: str, make: Callable[[], T], timeout: int | None = None) -> T:
    """The value ``make()`` returns (anything the cache can keep, not None), made once
    per ``cache_key`` and then read from the cache.  ``cache_key`` MUST name every
    version the value depends on.

    On a miss one request makes it while the others for the same key wait for its
    result, at most ``RENDER_WAIT_SECONDS`` (the module's docstring: single flight).
    An exception from ``make`` (``Http404``) reaches the caller unchanged; a failing
    cache only costs the caching."""
    calls = _CacheCalls(cache_key)
    value = calls.get(cache_key)
    if value is not None:
        return cast(T, value)

    held = lock_key(cache_key)
    token = secrets.token_hex(16)
    pauses = _poll_pauses()
    while True:
        took_lock = calls.add(held, token, RENDER_LOCK_SECONDS)
        if took_lock is None:  # the cache failed: nothing to wait for
            return make()
        if took_lock:
            try:
                value = make()
                calls.set(cache_key, value, timeout)
            finally:
                calls.delete_if(held, token)
            return cast(T, value)
        pause = next(pauses, None)
        if pause is None:
            break
        _sleep(pause)
        value = calls.get(cache_key)
        if value is not None:
            return cast(T, value)

    # Waited long enough: the maker is slow or died holding the lock.  Make it here,
    # and store it too, for those still waiting.
    logger.info("Waited %ss for %s to be made, making it here", RENDER_WAIT_SECONDS, cache_key)
    value = make()
    calls.set(cache_key, value, timeout)
    return value


def etag_for(request: HttpRequest, parts: tuple[Any, ...]) -> str:
    """The strong ETag of ``parts`` for this request's user and language."""
    user = getattr(request, "user", None)
    user_pk = user.pk if user is not None and user.is_authenticated else None
    return f'"{digest((KEY_SCHEME, parts, user_pk, _rendering_context()))}"'


def etag_matches(if_none_match: str, etag: str) -> bool:
    """RFC 9110's weak comparison of ``If-None-Match`` with our ETag."""
    if if_none_match.strip() == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == opaque for tag in parse_etags(if_none_match))


def _message_waiting(request: HttpRequest) -> bool:
    # Counting the messages does not consume them.
    return bool(getattr(request, "_messages", None) and len(messages.get_messages(request)))


def _mark_conditional(response: HttpResponseBase, etag: str) -> None:
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    patch_vary_headers(response, VARY)


def etag_response(
    request: HttpRequest, parts: tuple[Any, ...], build: Callable[[], HttpResponseBase]
) -> HttpResponseBase:
    """Answer a GET with ``build()`` carrying an ETag made of ``parts`` (the versions
    the response shows, the viewer key), the user and the language; a request whose
    ``If-None-Match`` holds that ETag gets 304 and ``build`` is not called.  Only a
    200 gets the ETag: an error or a redirect is not a version of the page.

    A request with a flash message waiting (the answer to a form just sent) is never
    a 304: every page shows it once, and the browser's copy would not hold it."""
    etag = etag_for(request, parts)
    if (
        request.method in ("GET", "HEAD")
        and not _message_waiting(request)
        and etag_matches(request.headers.get("If-None-Match", ""), etag)
    ):
        not_modified: HttpResponse = HttpResponseNotModified()
        _mark_conditional(not_modified, etag)
        return not_modified
    response = build()
    if response.status_code == 200:
        _mark_conditional(response, etag)
    return response
