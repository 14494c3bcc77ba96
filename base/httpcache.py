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
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from django.utils.safestring import SafeString, mark_safe

# Bumped when the way keys are built changes, so old entries are never read again.
KEY_SCHEME = 1

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


def fragment(
    key: tuple[Any, ...], render: Callable[[], str], timeout: int | None = None
) -> SafeString:
    """The HTML ``render()`` returns, rendered once per ``key`` (and language) and then
    served from the cache.  ``timeout``: seconds to keep it (None: the cache's
    ``TIMEOUT``; an old version is never asked for again, so it only has to expire)."""
    cache_key = fragment_cache_key(key)
    html = cache.get(cache_key)
    if html is None:
        html = str(render())
        if timeout is None:
            cache.set(cache_key, html)
        else:
            cache.set(cache_key, html, timeout)
    # The fragment is HTML our templates escaped when they rendered it.
    return mark_safe(html)


def etag_for(request: HttpRequest, parts: tuple[Any, ...]) -> str:
    """The strong ETag of ``parts`` for this request's user and language."""
    user = getattr(request, "user", None)
    user_pk = user.pk if user is not None and user.is_authenticated else None
    return f'"{digest((KEY_SCHEME, parts, user_pk, _rendering_context()))}"'


def _matches(if_none_match: str, etag: str) -> bool:
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
        and _matches(request.headers.get("If-None-Match", ""), etag)
    ):
        not_modified: HttpResponse = HttpResponseNotModified()
        _mark_conditional(not_modified, etag)
        return not_modified
    response = build()
    if response.status_code == 200:
        _mark_conditional(response, etag)
    return response
