"""How a tournament director finds their work: where signing in leads them, and the
header's menu of their queues.

- ``landing`` is registered with ``clubs.landing`` (TournamentsConfig.ready): the
  sign-in page, which clubs owns, leads a user who runs tournaments to the console.
- ``staff_menu`` is a context processor (config/settings.py): the header shows
  "Organize", the disputed results the user may decide and the profile claims they
  may decide, each only to a user the policy lets act on it.  The counts cost a
  fixed number of queries (the roles, one count of disputes, one count of claims)
  whatever the queues hold, and nothing at all until a template reads them: the
  menu is lazy, so a page that does not show it (the admin, an anonymous page)
  asks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import SimpleLazyObject

from clubs import permissions
from games import permissions as games_permissions
from games import queries as games_queries
from tournaments import permissions as tournament_permissions


def landing(user: Any) -> str | None:
    """The console for a user who runs tournaments, else no opinion (clubs.landing)."""
    if tournament_permissions.runs_tournaments(user):
        return str(reverse("tournaments:organize"))
    return None


@dataclass(frozen=True)
class StaffMenu:
    """What the header offers a signed-in user; None: the queue is not theirs."""

    organize: bool = False
    disputes: int | None = None
    claims: int | None = None


def menu_for(user: Any) -> StaffMenu:
    if user is None or not user.is_authenticated or not user.is_active:
        return StaffMenu()
    return StaffMenu(
        organize=tournament_permissions.runs_tournaments(user),
        disputes=(
            games_queries.disputes_count(user) if games_permissions.decides_disputes(user) else None
        ),
        claims=(
            permissions.claims_to_decide(user).count() if permissions.decides_claims(user) else None
        ),
    )


def staff_menu(request: HttpRequest) -> dict[str, Any]:
    return {"staff_menu": SimpleLazyObject(lambda: menu_for(getattr(request, "user", None)))}
