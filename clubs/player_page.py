"""What the apps above clubs add to a player's public page (``clubs:player``).

A player's page gathers their record: the clubs app knows their clubs, but their
matches belong to games and their events to tournaments, which clubs must not
import.  Each of those apps registers a section with ``extend`` in its
``AppConfig.ready``; the page renders every section in ``order`` below its own
facts.  A section reads through its own app's ``queries`` and renders its own
template, so each keeps its joins, its visibility rule and its pagination
(a query-string parameter of its own, such as ``?matches=2``) in one place.

A section must cost a fixed number of queries whatever the player's history, show
only what the viewer may see, and answer a page that does not exist with a 404
(``base.pagination.requested_page`` and the paginator say so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest
from django.utils.safestring import SafeString

from clubs.models import Player


@dataclass(frozen=True)
class Section:
    """One part of a player's page: ``render(request, player)`` answers its HTML
    (rendered from a template, so already escaped), or None to show nothing."""

    name: str
    order: int
    render: Callable[[HttpRequest, Player], SafeString | None]


_SECTIONS: dict[str, Section] = {}


def extend(section: Section) -> Section:
    """Add a section to every player's page (once per name: a second ``ready`` in the
    same process, as tests may cause, replaces it rather than showing it twice)."""
    _SECTIONS[section.name] = section
    return section


def sections() -> tuple[Section, ...]:
    return tuple(sorted(_SECTIONS.values(), key=lambda section: (section.order, section.name)))


def rendered(request: HttpRequest, player: Player) -> list[SafeString]:
    """The HTML of every section that has something to show for ``player``."""
    parts = (section.render(request, player) for section in sections())
    return [part for part in parts if part]
