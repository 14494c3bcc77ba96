"""Whether a match's result may be shown to a user: the one rule every page and
endpoint asks (the match page, the board and its JSON, the .mat/.sgf files, the
games API, the tournament pages, the rating pages).

A result is visible by default.  Higher apps hide results in more cases with
``extend`` from their ``AppConfig.ready`` (as ``clubs.permissions.extend``
grants writes in more cases); the tournaments app hides the results of a
silent round until the organizer publishes it, and those of a tournament that
does not publish results, from everyone but its organizers and arbiters.

Whatever the rules say, two kinds of user always see a result: site admins,
and the two players of the match (they played it; hiding it from them would
hide nothing, and they need their match page to record and confirm it).

A rule says three things about the same condition:

- ``hidden(user, match)``: for one match (pages of one match);
- ``hidden_q(user)``: the same as a filter on ``Match``, for lists (one query
  whatever the number of rows);
- ``withheld_q()``: the results that are not public yet for anybody, as a
  filter on ``Match``.  Nothing that publishes counts them meanwhile: rating
  pools leave them out (``ratings.services.rated_matches``) until the rule
  stops withholding them, and the higher app then asks the pools to catch up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import BooleanField, Case, Exists, OuterRef, Q, QuerySet, Value, When
from django.utils.translation import gettext as _

from clubs import permissions
from clubs.models import Player
from games.models import Match

# The name of the annotation ``hide_results`` adds to each match of a list.
HIDDEN = "result_hidden_to_viewer"

_NOTHING = Q(pk__in=[])


@dataclass(frozen=True)
class ResultRule:
    hidden: Callable[[Any, Match], bool]
    hidden_q: Callable[[Any], Q]
    withheld_q: Callable[[], Q]


_RULES: list[ResultRule] = []


def extend(
    *,
    hidden: Callable[[Any, Match], bool],
    hidden_q: Callable[[Any], Q],
    withheld_q: Callable[[], Q],
) -> ResultRule:
    """Let a higher app hide results in more cases (see the module docstring)."""
    rule = ResultRule(hidden, hidden_q, withheld_q)
    if rule not in _RULES:
        _RULES.append(rule)
    return rule


def hidden_message() -> str:
    """What a page or endpoint answers when it refuses a hidden result."""
    return _("The result of this match is not published yet.")


def _signed_in(user: Any) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def sees_every_result(user: Any) -> bool:
    return permissions.is_site_admin(user)


def _own_player_ids(user: Any) -> frozenset[int]:
    """The user's player records (one query, cached on the user for the request)."""
    cached = getattr(user, "_zary_player_ids", None)
    if cached is None:
        cached = frozenset(Player.objects.filter(user=user).values_list("pk", flat=True))
        user._zary_player_ids = cached
    return cached


def plays_in(user: Any, match: Match) -> bool:
    if not _signed_in(user):
        return False
    return bool({match.player1_id, match.player2_id} & _own_player_ids(user))


def result_visible(user: Any, match: Match) -> bool:
    """Whether ``user`` may see the result of ``match``: its score, winner, games,
    turns, reports and files.

    A match read through ``hide_results`` for the same user carries the answer
    already (no query); otherwise each rule decides (a query or two per match).
    """
    if sees_every_result(user):
        return True
    annotated = match.__dict__.get(HIDDEN)
    if annotated is not None:
        return not annotated  # hide_results has asked plays_in's question too
    hidden = any(rule.hidden(user, match) for rule in _RULES)
    return not hidden or plays_in(user, match)


def hidden_result_q(user: Any) -> Q:
    """The matches whose result ``user`` may not see, as a filter on ``Match``."""
    if sees_every_result(user) or not _RULES:
        return _NOTHING
    hidden = _NOTHING
    for rule in _RULES:
        hidden |= rule.hidden_q(user)
    if _signed_in(user):
        hidden &= ~(Q(player1__user=user) | Q(player2__user=user))
    return hidden


def hidden_matches(user: Any) -> QuerySet[Match]:
    """The matches whose result ``user`` may not see (for filters on related rows:
    ``reports.exclude(match__in=hidden_matches(user))``)."""
    if sees_every_result(user) or not _RULES:
        return Match.objects.none()
    return Match.objects.filter(hidden_result_q(user))


def hidden_flag(user: Any, match_field: str) -> Exists | Value:
    """An expression for ``annotate`` on rows that point to a match (``match_field``,
    e.g. ``"match_id"``): whether ``user`` may not see its result (no extra query)."""
    if sees_every_result(user) or not _RULES:
        return Value(False, output_field=BooleanField())
    return Exists(hidden_matches(user).filter(pk=OuterRef(match_field)))


def hide_results(matches: QuerySet[Match], user: Any) -> QuerySet[Match]:
    """``matches`` with each one marked for ``result_visible`` (one query for the list)."""
    if sees_every_result(user) or not _RULES:
        return matches.annotate(**{HIDDEN: Value(False, output_field=BooleanField())})
    return matches.annotate(
        **{
            HIDDEN: Case(
                When(hidden_result_q(user), then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        }
    )


def withheld_q() -> Q:
    """The matches whose results are not public yet for anybody (not rated meanwhile)."""
    withheld = _NOTHING
    for rule in _RULES:
        withheld |= rule.withheld_q()
    return withheld
