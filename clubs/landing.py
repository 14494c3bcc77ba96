"""Where signing in leads a user who gave no ``next`` page.

Clubs owns the sign-in page but not every place a user works: an organizer's
desk is the tournaments console, which clubs cannot import.  A higher app
registers a landing with ``extend`` in its ``AppConfig.ready``; a landing
answers the URL of that app's page for the user, or None when the page is not
theirs.  The first landing that answers wins (in the order the apps
registered them); everyone else lands on their account page.  A landing asks
the policy (``clubs.permissions`` and the rules registered with it), so the
page it chooses is one the user may open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse

# landing(user) -> a URL path of the user's own work, or None
Landing = Callable[[Any], str | None]

_LANDINGS: list[Landing] = []


def extend(landing: Landing) -> Landing:
    """Let a higher app offer its page to the users it is theirs (see the module docstring)."""
    if landing not in _LANDINGS:
        _LANDINGS.append(landing)
    return landing


def landings() -> tuple[Landing, ...]:
    return tuple(_LANDINGS)


def landing_page(user: Any) -> str:
    """The page ``user`` lands on after signing in without a ``next`` page."""
    for landing in _LANDINGS:
        url = landing(user)
        if url:
            return url
    return str(reverse("clubs:account"))
