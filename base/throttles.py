"""Request rate limits: the API's DRF throttles, and the same limits for the HTML
forms whose posts cost (sign-up, password reset, result reports, file imports).

Scopes and their rates are in ``settings.THROTTLE_RATES`` (from the environment,
README "Configuration"), read at every request so that a changed setting applies
at once:

- ``anon``: every API request without credentials, per address;
- ``user``: every API request of a signed-in user (or token), per user;
- the write scopes (``reports``, ``signup``, ``password_reset``, ``imports``,
  ``archives``, ``analysis``): each post that costs, per user, or per address when nobody is
  signed in.  An API view names them per action (``throttle_scopes``); a page
  wraps its view in ``limit_posts``.  The API and the form of one scope share a
  count, so a client cannot double its allowance by using both.

A client past a limit gets 429 with ``Retry-After`` (seconds): the API in its
usual error body (``{"detail": ...}``, the message translated), a page as a
short page saying when to try again.  Public pages (GET) are never limited:
anonymous visitors are served from the page cache (base.pagecache), and a
whole club hall shares one address.

The counts live in Django's default cache: Redis in production (CACHE_URL), one
count for every gunicorn worker; without CACHE_URL each process keeps its own,
so a client could send a limit's worth to each worker.  DRF keeps a list of the
recent requests' times per client and scope, read and written back without a
lock: under concurrent requests a few may go uncounted, never refused wrongly.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.exceptions import Throttled
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle


class RateThrottle(SimpleRateThrottle):
    """A limit per client in one scope: the signed-in user, else the address
    (DRF's ``get_ident``: REMOTE_ADDR, or the address SIGNIN_PROXY_COUNT proxies put in
    X-Forwarded-For).  Works on a DRF request and on a plain Django one."""

    def __init__(self, scope: str | None = None) -> None:
        # DRF reads the rate when the throttle is made; here it is read per request.
        if scope is not None:
            self.scope = scope

    def scope_for(self, request: Any, view: Any) -> str | None:
        return self.scope

    def allow_request(self, request: Any, view: Any) -> bool:
        scope = self.scope_for(request, view)
        if scope is None:
            return True
        self.scope = scope
        try:
            self.rate = settings.THROTTLE_RATES[scope]
        except KeyError:
            raise ImproperlyConfigured(f"THROTTLE_RATES has no rate for {scope!r}") from None
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return bool(super().allow_request(request, view))

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            ident = f"user-{user.pk}"
        else:
            ident = f"address-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AnonymousRateThrottle(RateThrottle):
    """Every API request without credentials, counted per address."""

    scope = "anon"

    def scope_for(self, request: Any, view: Any) -> str | None:
        return None if request.user.is_authenticated else self.scope


class SignedInRateThrottle(RateThrottle):
    """Every API request of a signed-in user, counted per user (not per address:
    one user's phone and laptop share it; a hall's players do not)."""

    scope = "user"

    def scope_for(self, request: Any, view: Any) -> str | None:
        return self.scope if request.user.is_authenticated else None


class WriteRateThrottle(RateThrottle):
    """The stricter limit of a write that costs: the view's ``throttle_scopes``
    names the scope of each such action (``{"create": "reports"}``); reads and the
    other actions count only in ``anon``/``user``."""

    def scope_for(self, request: Any, view: Any) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        scopes = getattr(view, "throttle_scopes", {})
        return scopes.get(getattr(view, "action", None))


def retry_message(wait: float | None) -> str:
    """What a refused client reads: when it may try again, in its language."""
    if wait is None:
        return _("Too many requests. Try again later.")
    seconds = max(1, math.ceil(wait))
    if seconds < 120:
        return ngettext(
            "Too many requests. Try again in %(seconds)d second.",
            "Too many requests. Try again in %(seconds)d seconds.",
            seconds,
        ) % {"seconds": seconds}
    minutes = math.ceil(seconds / 60)
    return ngettext(
        "Too many requests. Try again in %(minutes)d minute.",
        "Too many requests. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def translated(exc: Throttled) -> Throttled:
    """DRF's 429 with a translated message (DRF words the wait in English, whatever
    the language) and the same wait, which its handler sends as Retry-After."""
    answer = Throttled(detail=retry_message(exc.wait))
    answer.wait = exc.wait
    return answer


def refused_page(request: HttpRequest, wait: float | None) -> HttpResponse:
    response = render(
        request,
        "throttled.html",
        {"title": _("Too many requests"), "message": retry_message(wait)},
        status=429,
    )
    if wait is not None:
        response["Retry-After"] = str(max(1, math.ceil(wait)))
    return response


ViewFunction = Callable[..., HttpResponse]


def limit_posts(scope: str) -> Callable[[ViewFunction], ViewFunction]:
    """Count every POST to the view in ``scope`` (per user, else per address) and
    answer 429 past its rate; other methods pass untouched.  Counted before the
    view runs, so a refused post costs no password hash, e-mail or file check."""

    def decorate(view: ViewFunction) -> ViewFunction:
        @functools.wraps(view)
        def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method == "POST":
                throttle = RateThrottle(scope)
                if not throttle.allow_request(request, None):
                    return refused_page(request, throttle.wait())
            return view(request, *args, **kwargs)

        return limited

    return decorate


THROTTLED_RESPONSE = {
    "description": (
        "Too many requests from this client (its address, or its user): try again after "
        "the seconds in Retry-After.  The body is the operation's usual error shape."
    ),
    "headers": {
        "Retry-After": {
            "schema": {"type": "integer", "minimum": 1},
            "description": "Seconds until the client may send again.",
        }
    },
    "content": {
        "application/json": {
            # {"detail": ...} everywhere, but recording a turn answers in its own
            # error shape (code, reason, turn): an object, detail when there is one.
            "schema": {"type": "object", "properties": {"detail": {"type": "string"}}}
        }
    },
}


def document_throttling(
    result: dict[str, Any], generator: Any, request: Any, public: bool, **kwargs: Any
) -> dict[str, Any]:
    """A drf-spectacular postprocessing hook: every API operation may answer 429."""
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            # A copy each: the YAML writer would tie shared objects with anchors.
            responses.setdefault("429", copy.deepcopy(THROTTLED_RESPONSE))
    return result
