"""Whole public pages for anonymous visitors, served before most of Django runs.

At a round's start hundreds of phones open the same few pages (the pairings, the
standings, their own table) without signing in.  ``base.httpcache`` already renders
each page's content once per version; what is left per request is Django's
middleware, the session, the user, the frame's template and the queries that find
the tournament.  This middleware keeps the whole answer of such a page and hands
it out again from the cache, so a visitor costs a cache read and one small query.

Which answer is fresh is never guessed.  A view opts in by naming what its page
shows with ``depends_on(request, kind, pk)`` (a tournament, a rating pool) *before*
it reads any of it; each such object has a generation token in the cache, and the
answer is kept with the tokens it was made under.  The services that change what a
page shows call ``expire_on_commit(kind, pk)``: once their transaction commits, the
object gets a new token and every answer made under the old one is dropped.  As
the token is read before the page's data, an answer whose tokens still hold shows
everything committed before its tokens were given (an answer made while a change
was committing carries a token that change then replaces).  A served visit costs
one cache read and no query.

The tokens must be shared by every process that writes or serves (Redis,
``CACHE_URL``): with each process's own memory, a change made by one worker or by
Celery would not reach the others, so ``PAGE_CACHE_TIMEOUT`` is 0 (off) by default
without ``CACHE_URL``.  Should the cache be unreachable when a change commits (the
token cannot be replaced), the kept answers of that object are served at most
``PAGE_CACHE_TIMEOUT`` seconds more; should it be unreachable when a page is asked
for, the page is made the whole way.  ``until`` bounds an answer that also shows
what has no token.

Only what is the same for every anonymous visitor is kept and served:

- a GET without credentials: no session or messages cookie, no ``Authorization``
  header (a signed-in visitor, or one with a message waiting, always goes the
  whole way);
- a 200 that sets no cookie (a page that used the CSRF token sets one, so a page
  with a form that carries a token is never kept) and was rendered for an
  anonymous user;
- keyed by scheme, host, path, query string and the language the request asks
  for (as ``LocaleMiddleware`` chooses it), so a Russian page is never served to
  an English reader; only addresses whose query holds the parameters of pages
  (``KEPT_QUERY``: a page number, a bracket's part or section) are kept, so the
  cache holds at most the pages that exist.

Served answers keep the headers the whole stack gave them (ETag, Vary,
Content-Language, the security headers); a reload whose ``If-None-Match`` holds
the ETag is a 304.  ``PAGE_CACHE_TIMEOUT`` (seconds, 0 turns it off) bounds how
long an answer is kept.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils import translation

from base.httpcache import digest, etag_matches

logger = logging.getLogger(__name__)

# Bumped when the shape of a kept answer changes, so old ones are never read.
ENTRY_SCHEME = 2

# Headers a kept answer carries again (the rest are made per request or by the server).
_KEPT_HEADERS = frozenset(
    {
        "content-type",
        "content-language",
        "etag",
        "cache-control",
        "vary",
        "x-frame-options",
        "x-content-type-options",
        "referrer-policy",
        "cross-origin-opener-policy",
        "content-security-policy",
        "strict-transport-security",
    }
)

# Which tokens each kept answer depends on, learnt by this process, so that a visit
# reads the answer and its tokens in one round trip (bounded: it is only a hint).
_LEARNT_MOST = 20_000
_learnt: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True)
class _Kept:
    """An answer kept for anonymous visitors, and the tokens it was made under."""

    tokens: tuple[tuple[str, str], ...]
    until: float | None
    status: int
    headers: tuple[tuple[str, str], ...]
    content: bytes


@dataclass
class _Making:
    """What a page being made for the page cache has said it shows."""

    key: str
    tokens: list[tuple[str, str]] = field(default_factory=list)
    until: float | None = None


def _token_key(kind: str, pk: int) -> str:
    return f"page-token:{kind}:{pk}"


def depends_on(request: HttpRequest, kind: str, pk: int, *, until: float | None = None) -> bool:
    """Say that the page answering ``request`` shows object ``pk`` of ``kind`` (whose
    writers call ``expire_on_commit(kind, pk)``); ``until``: a time (``time.time()``)
    after which the answer must not be served again.  A page that never says it is
    not kept.

    True when the answer may be kept: the caller must then read what the page shows
    (the object's version included) after this call, not before."""
    making: _Making | None = request.__dict__.get("_page_making")
    if making is None:
        return False
    key = _token_key(kind, pk)
    try:
        token = cache.get(key)
        if token is None:
            cache.add(key, secrets.token_hex(8), _token_timeout())
            token = cache.get(key)
    except Exception:  # the cache is down: the page is made, not kept
        logger.warning("page cache: could not read the token %s", key, exc_info=True)
        token = None
    if token is None:
        del request.__dict__["_page_making"]
        return False
    making.tokens.append((key, str(token)))
    if until is not None:
        making.until = until if making.until is None else min(making.until, until)
    return True


def not_kept(request: HttpRequest) -> None:
    """The answer to ``request`` must not be kept (what it said it shows was not what
    it then read)."""
    request.__dict__.pop("_page_making", None)


def expire_on_commit(kind: str, *pks: int) -> None:
    """Drop every kept answer that shows these objects once the caller's transaction
    commits (at once outside one)."""
    if not pks or _timeout() <= 0:
        return
    keys = [_token_key(kind, pk) for pk in pks]
    transaction.on_commit(lambda: _expire(keys))


def _expire(keys: list[str]) -> None:
    try:
        cache.set_many({key: secrets.token_hex(8) for key in keys}, _token_timeout())
    except Exception:  # bounded: what was kept expires within PAGE_CACHE_TIMEOUT
        logger.warning("page cache: could not replace the tokens %s", keys, exc_info=True)


def _token_timeout() -> int:
    # A token outlives the answers made under it; a lost token only drops them.
    return _timeout() * 2 + 60


def _timeout() -> int:
    return int(getattr(settings, "PAGE_CACHE_TIMEOUT", 0))


# The query parameters of the pages that may be kept (a page of a list, a part or a
# section of a bracket, the live rating list), each value short.  Any other query
# (a search, a made-up parameter) is made the whole way and not kept: a visitor
# could otherwise fill the cache with one answer per made-up address.
KEPT_QUERY = frozenset({"page", "part", "section", "live"})
KEPT_QUERY_VALUE_MOST = 12


def _anonymous_get(request: HttpRequest) -> bool:
    """A request that no credential or waiting message sets apart from any other,
    for an address the cache may keep."""
    if request.method != "GET" or "HTTP_AUTHORIZATION" in request.META:
        return False
    cookies = request.COOKIES
    if settings.SESSION_COOKIE_NAME in cookies or "messages" in cookies:
        return False
    return all(
        name in KEPT_QUERY and all(len(value) <= KEPT_QUERY_VALUE_MOST for value in values)
        for name, values in request.GET.lists()
    )


def _entry_key(request: HttpRequest) -> tuple[str, str]:
    """The cache key of the answer to ``request``, and the language it asks for."""
    language = translation.get_language_from_request(request)
    parts = (
        ENTRY_SCHEME,
        request.scheme,
        request.get_host(),
        request.path,
        request.META.get("QUERY_STRING", ""),
        language,
    )
    return f"page:{digest(parts)}", language


def _still_true(kept: _Kept, tokens: dict[str, object]) -> bool:
    if kept.until is not None and time.time() >= kept.until:
        return False
    return all(tokens.get(key) == token for key, token in kept.tokens)


def _serve(request: HttpRequest, kept: _Kept) -> HttpResponseBase:
    headers = dict(kept.headers)
    etag = headers.get("ETag")
    if etag is not None and etag_matches(request.headers.get("If-None-Match", ""), etag):
        not_modified = HttpResponseNotModified()
        for name in ("ETag", "Cache-Control", "Vary"):
            if name in headers:
                not_modified[name] = headers[name]
        return not_modified
    response = HttpResponse(kept.content, status=kept.status)
    for name, value in kept.headers:
        response[name] = value
    return response


def _keepable(request: HttpRequest, response: HttpResponseBase, language: str) -> bool:
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    user = getattr(request, "user", None)
    if user is None or user.is_authenticated:
        return False
    # The page was rendered in the language its key names.
    return response.get("Content-Language", language) == language


class AnonymousPageCache:
    """Serve kept answers of the pages that opted in (``depends_on``); keep new ones.

    Sits right after the static files: a served answer skips sessions, locale,
    CSRF, authentication and the view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        timeout = _timeout()
        if timeout <= 0 or not _anonymous_get(request):
            return self.get_response(request)
        key, language = _entry_key(request)
        kept = _read(key)
        if kept is not None:
            return _serve(request, kept)
        making = request.__dict__["_page_making"] = _Making(key)
        response = self.get_response(request)
        still_making = request.__dict__.get("_page_making") is making
        if still_making and making.tokens and _keepable(request, response, language):
            _keep(making, response, timeout)
        return response


def _read(key: str) -> _Kept | None:
    """The answer kept under ``key`` while its tokens hold: one round trip once this
    process knows which tokens it depends on."""
    learnt = _learnt.get(key, ())
    try:
        found = cache.get_many([key, *learnt])
        kept = found.get(key)
        if not isinstance(kept, _Kept):
            return None
        needed = tuple(name for name, _token in kept.tokens)
        if needed != learnt:
            _learn(key, needed)
            found.update(cache.get_many(list(needed)))
    except Exception:  # the cache is down or busy: the page is made the whole way
        logger.warning("page cache: could not read %s", key, exc_info=True)
        return None
    return kept if _still_true(kept, found) else None


def _learn(key: str, tokens: tuple[str, ...]) -> None:
    if len(_learnt) >= _LEARNT_MOST:
        _learnt.clear()
    _learnt[key] = tokens


def _keep(making: _Making, response: HttpResponseBase, timeout: int) -> None:
    assert isinstance(response, HttpResponse)
    headers = tuple(
        (name, value) for name, value in response.items() if name.lower() in _KEPT_HEADERS
    )
    kept = _Kept(
        tokens=tuple(making.tokens),
        until=making.until,
        status=response.status_code,
        headers=headers,
        content=response.content,
    )
    if making.until is not None:
        timeout = max(1, min(timeout, int(making.until - time.time()) + 1))
    try:
        cache.set(making.key, kept, timeout)
    except Exception:  # keeping is an optimisation; the answer is already made
        logger.warning("page cache: could not keep %s", making.key, exc_info=True)
    _learn(making.key, tuple(name for name, _token in making.tokens))
