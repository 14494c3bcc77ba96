"""The web admin (/admin/) for site, federation and club staff.

Staff who administer a federation or a club are not superusers and hold no
Django model permissions: every ``has_*_permission`` here asks
``clubs.permissions`` instead, with the object, and every queryset is cut to
what the user administers (``permissions.admin_*``).  Saving goes through
``clubs.services`` (never ``obj.save()``), so the same permission checks and
the audit log apply as everywhere else.

One module per seam; Django autodiscovers this package, and importing the
modules below registers their pages:

- ``base``: the policy admin, form and inline every page stands on, shared helpers;
- ``filters``: list filters of the change lists;
- ``federations``: federations, their rated disciplines, the CSV import page and
  the exports; the discipline catalogue;
- ``clubs``: clubs and their CSV export;
- ``memberships``: memberships, inline on a player's page and on their own page;
- ``players``: players, their CSV export and the "find duplicates" (merge) page;
- ``roles``: role assignments and profile claims;
- ``audit``: the audit log, read-only;
- ``signin``: failed sign-ins remembered by django-axes, and lifting a lockout;
- ``second_factor``: who set up two-step sign-in, and resetting it (a lost phone);
- ``tokens``: API tokens, for site admins: read-only, and revoking a leaked one.
"""

from clubs.admin import (
    audit,
    clubs,
    federations,
    memberships,
    players,
    roles,
    second_factor,
    signin,
    tokens,
)

__all__ = [
    "audit",
    "clubs",
    "federations",
    "memberships",
    "players",
    "roles",
    "second_factor",
    "signin",
    "tokens",
]
