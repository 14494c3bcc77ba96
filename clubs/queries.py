"""Read functions of the clubs app (pages of higher apps may call these)."""

from __future__ import annotations

import datetime
import re
from collections import defaultdict

from anyascii import anyascii
from django.db.models import Count, Prefetch, Q, QuerySet

from clubs.models import Club, Discipline, Federation, Membership, Player

_NON_LETTERS = re.compile(r"[^a-z0-9 ]+")


def name_key(name: str) -> str:
    """A script- and order-insensitive key: 'Мамедов Эльчин' ~ 'Elchin Mamedov'."""
    latin = anyascii(name).casefold().replace("'", "")
    words = _NON_LETTERS.sub(" ", latin).split()
    return " ".join(sorted(words))


def name_condition(word: str, prefix: str = "") -> Q:
    """One word of a player's name (``prefix`` leads to the player: "player__"), in
    either script: 'Мамедов' also finds 'Mamedov'."""
    condition = Q(**{f"{prefix}name_native__icontains": word}) | Q(
        **{f"{prefix}name_latin__icontains": word}
    )
    latin = anyascii(word).replace("'", "").strip()
    if latin and latin != word:
        condition |= Q(**{f"{prefix}name_latin__icontains": latin})
    return condition


def duplicate_groups(federation: Federation | None = None) -> list[list[Player]]:
    """Groups of active players that look like one person.

    Same name key (from either spelling); within a key, each birth year makes
    its own group together with the players whose year is unknown, so two
    namesakes born in different years are never proposed as one.
    """
    players = Player.objects.filter(merged_into__isnull=True).select_related("federation")
    if federation is not None:
        players = players.filter(federation=federation)
    by_key: dict[str, dict[int, Player]] = defaultdict(dict)
    for player in players:
        for key in {name_key(player.name_latin), name_key(player.name_native)} - {""}:
            by_key[key][player.pk] = player
    groups: dict[frozenset[int], list[Player]] = {}
    for members in by_key.values():
        unknown = [p for p in members.values() if not p.birth_year]
        years = {p.birth_year for p in members.values() if p.birth_year}
        candidates = [
            [p for p in members.values() if p.birth_year == year] + unknown for year in years
        ] or [unknown]
        for group in candidates:
            if len(group) > 1:
                groups.setdefault(frozenset(p.pk for p in group), sorted(group, key=lambda p: p.pk))
    return sorted(groups.values(), key=lambda group: (group[0].name_latin, group[0].pk))


def club_members(club: Club) -> QuerySet[Membership]:
    return (
        Membership.objects.current()
        .filter(club=club)
        .select_related("player")
        .order_by("player__name_latin")
    )


def player_profile(pk: int) -> Player:
    return (
        Player.objects.select_related("federation", "merged_into")
        .prefetch_related(
            Prefetch(
                "memberships",
                queryset=Membership.objects.select_related("club", "club__federation").order_by(
                    "-start"
                ),
            )
        )
        .get(pk=pk)
    )


# --- Public pages: each function is a fixed number of queries whatever the number of rows.


def current_q(prefix: str = "", on: datetime.date | None = None) -> Q:
    """Membership rows (reached through ``prefix``) current on ``on`` (today)."""
    day = on or datetime.date.today()
    return Q(**{f"{prefix}start__lte": day}) & (
        Q(**{f"{prefix}end__isnull": True}) | Q(**{f"{prefix}end__gte": day})
    )


def with_member_counts(clubs: QuerySet[Club]) -> QuerySet[Club]:
    """Clubs annotated with ``member_count``, their current members."""
    return clubs.annotate(
        member_count=Count("memberships__player", filter=current_q("memberships__"), distinct=True)
    )


def public_federations() -> QuerySet[Federation]:
    """Public federations with ``club_count``, their active clubs (one query)."""
    return Federation.objects.filter(is_public=True).annotate(
        club_count=Count("clubs", filter=Q(clubs__is_active=True), distinct=True)
    )


def federation_home(slug: str) -> Federation:
    """A public federation with its active clubs (``member_count`` on each) and
    its disciplines: three queries."""
    clubs = with_member_counts(Club.objects.filter(is_active=True)).order_by("name")
    return Federation.objects.prefetch_related(
        Prefetch("clubs", queryset=clubs, to_attr="active_clubs"),
        Prefetch("disciplines", queryset=Discipline.objects.order_by("name")),
    ).get(slug=slug, is_public=True)


def public_club(federation_slug: str, club_slug: str) -> Club:
    """A club of a public federation, with its federation (one query)."""
    return Club.objects.select_related("federation").get(
        federation__slug=federation_slug, federation__is_public=True, slug=club_slug
    )


def find_public_players(text: str, limit: int) -> list[Player]:
    """Players with a public page (of a public federation, or of none; not merged
    away) whose name has every word of ``text``, in either script, at most ``limit``
    of them by name, with their federation (one query)."""
    words = text.split()
    if not words:
        return []
    players = Player.objects.filter(merged_into__isnull=True).filter(
        Q(federation__isnull=True) | Q(federation__is_public=True)
    )
    for word in words:
        players = players.filter(name_condition(word))
    return list(players.select_related("federation").order_by("name_latin", "id")[:limit])
