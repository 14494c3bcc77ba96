"""Whose results of a tournament are hidden: the tournaments app's one rule, asked by
every page and endpoint that shows a result.

A tournament hides every result while it does not publish results, and the
results of a silent round until the organizer publishes the standings that
cover it.  Hidden results are still seen by the tournament's organizers and
arbiters (and the admins who run it) and, for each match, by its two players.

The rule is registered with ``games.visibility`` (``TournamentsConfig.ready``),
so the lower apps' pages (the match page, the board, the rating pages) ask it
through ``games.visibility.result_visible``; the tournaments app's own pages
and API ask ``pairing_result_hidden`` for a pairing's row, ``results_hidden``
for a whole round or tournament, ``hidden_bracket_slots`` for a bracket tree.
Standings follow the same people: a snapshot is public once published, and
before that only those who see hidden results see it
(``sees_unpublished_standings``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Q

from clubs.permissions import is_site_admin
from games import visibility
from games.models import Match
from tournaments import permissions as tournament_permissions
from tournaments.models import Entry, Pairing, Round, Tournament

# ``viewer_key``'s answers: what a viewer may see of a tournament's results.
STAFF_VIEW = "staff"
PUBLIC_VIEW = "public"


def sees_hidden_results(user: Any, tournament: Tournament) -> bool:
    """The tournament's organizers and arbiters (and the admins who run it) see every
    result of it, published or not (no query: the roles are cached on the user)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return bool(
        is_site_admin(user)
        or tournament_permissions.manages(user, tournament)
        or tournament_permissions.arbitrates(user, tournament)
    )


def hides_results(tournament: Tournament, round: Round | None = None) -> bool:
    """Whether the results of ``round`` (or, with no round, of the tournament as a
    whole) are kept from the public: a tournament that does not publish results, a
    silent round.  ``hidden_results_q`` is the same condition as a filter."""
    return not tournament.publish_results or (round is not None and round.silent)


def hidden_results_q(user: Any) -> Q:
    """``results_hidden`` as a filter on ``games.Match``: the matches of hidden rounds."""
    if is_site_admin(user):
        return Q(pk__in=[])
    hidden = Q(pairing__round__silent=True) | Q(pairing__round__tournament__publish_results=False)
    staff = tournament_permissions.staff_tournaments_q(user)
    return hidden & ~Q(pairing__round__tournament__in=Tournament.objects.filter(staff))


def withheld_results_q() -> Q:
    """Results not public yet for anybody: those of silent rounds (not rated until the
    round is published).  A tournament that does not publish results is still rated."""
    return Q(pairing__round__silent=True)


def results_hidden(tournament: Tournament, round: Round | None, user: Any) -> bool:
    """Whether ``user`` must not see the results of ``round`` (None: every result of
    the tournament, as in its bracket): ``hides_results``, for everyone but those
    who run it.  (The two players of a match see their own result:
    ``pairing_result_hidden`` and ``games.visibility`` say so for every match.)"""
    return hides_results(tournament, round) and not sees_hidden_results(user, tournament)


def _pairing_of(match: Match) -> Pairing | None:
    """The match's pairing with its round and tournament: from the caches where the
    caller read the match through its pairing, else one query."""
    if Match.pairing.is_cached(match):  # type: ignore[attr-defined]
        pairing: Pairing | None = getattr(match, "pairing", None)
        if pairing is None or (
            Pairing.round.is_cached(pairing)  # type: ignore[attr-defined]
            and Round.tournament.is_cached(pairing.round)  # type: ignore[attr-defined]
        ):
            return pairing
    return (
        Pairing.objects.select_related("round__tournament").filter(match_id=match.pk).first()
        if match.pk is not None
        else None
    )


def match_result_hidden(user: Any, match: Match) -> bool:
    """``results_hidden`` for the match's round (False for a match outside tournaments)."""
    pairing = _pairing_of(match)
    if pairing is None:
        return False
    return results_hidden(pairing.round.tournament, pairing.round, user)


def pairing_result_hidden(user: Any, pairing: Pairing) -> bool:
    """Whether ``user`` must not see the result of ``pairing`` (its match's, when it has
    one, by ``games.visibility``; a pairing without a match by its round)."""
    if pairing.match_id is not None and pairing.match is not None:
        return not visibility.result_visible(user, pairing.match)
    rnd = pairing.round
    if not results_hidden(rnd.tournament, rnd, user):
        return False
    return not (
        user is not None
        and user.is_authenticated
        and user.pk
        in (
            pairing.entry1.player.user_id,
            pairing.entry2.player.user_id if pairing.entry2 is not None else None,
        )
    )


def hidden_bracket_slots(
    user: Any,
    tournament: Tournament,
    columns: Sequence[Sequence[dict[str, Any]]],
    pairings: Iterable[Pairing],
) -> set[str]:
    """The slots of a flight's bracket (``queries.bracket_view``) whose results ``user``
    may not see: every slot while the tournament's results are hidden from them (the
    tree would tell who went through), else the slots of the ``pairings`` whose result
    is hidden (each with its round, tournament, entries and match loaded)."""
    if results_hidden(tournament, None, user):
        return {m["slot"] for column in columns for m in column}
    hidden_pairings = {p.pk for p in pairings if pairing_result_hidden(user, p)}
    return {m["slot"] for column in columns for m in column if m.get("pairing") in hidden_pairings}


def hide_bracket_results(columns: Sequence[Sequence[dict[str, Any]]], hidden: set[str]) -> None:
    """Blank in ``columns`` what the ``hidden`` slots would tell: their scores, winner
    and forfeit, and a player who reached a match not paired yet from one of them."""
    players_of_hidden = {
        m["slot"]: {s["entry"] for s in (m.get("entry1"), m.get("entry2")) if s and s.get("entry")}
        for column in columns
        for m in column
        if m["slot"] in hidden
    }
    for column in columns:
        for m in column:
            if m["slot"] in hidden:
                m["score1"] = m["score2"] = m["winner"] = None
                m["forfeit"] = False
            if m.get("pairing") is not None:
                continue
            for side in ("entry1", "entry2"):
                entry = m[side].get("entry") if m.get(side) else None
                if entry is not None and any(
                    entry in players_of_hidden.get(feeder, ())
                    for feeder in m.get("feeds_from") or []
                ):
                    m[side] = None


def viewer_key(user: Any, tournament: Tournament) -> str:
    """A short name for what ``user`` may see of the tournament's results and standings,
    equal for two users exactly when this module's rules show them the same: for the
    keys of cached renderings (``base.httpcache``) beside ``Tournament.public_version``.

    ``"staff"``: those who see every result and the unpublished standings
    (``sees_hidden_results``); ``"public"``: everyone else while nothing they could
    see more of is hidden; ``"player-<user id>"``: a player of the tournament while
    some of its results are hidden (they see their own matches').  At most two
    small queries, for a signed-in viewer who does not run the tournament.  Only
    results: a page that shows more per viewer (its console links, "your table")
    keys that too."""
    if sees_hidden_results(user, tournament):
        return STAFF_VIEW
    if user is None or not user.is_authenticated or not user.is_active:
        return PUBLIC_VIEW
    nothing_hidden = (
        not hides_results(tournament)
        and not Round.objects.filter(tournament=tournament, silent=True).exists()
    )
    if (
        nothing_hidden
        or not Entry.objects.filter(tournament=tournament, player__user=user).exists()
    ):
        return PUBLIC_VIEW
    return f"player-{user.pk}"


def sees_unpublished_standings(user: Any, tournament: Tournament) -> bool:
    """Whether ``user`` sees the tournament's standings before they are published: those
    who see its hidden results (the standings count them)."""
    return sees_hidden_results(user, tournament)


def shown_standings_q(user: Any) -> Q:
    """The standings snapshots ``user`` may read, as a filter on ``StandingsSnapshot``:
    the published ones, and every one of the tournaments whose hidden results they see."""
    return Q(published_at__isnull=False) | tournament_permissions.staff_tournaments_q(
        user, "tournament__"
    )
