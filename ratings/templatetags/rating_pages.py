"""Template helpers of the rating pages, and the ratings section of the player profile.

``{% load rating_pages %}``:

- ``{{ value|signed }}``: a change with its sign and two decimals ("+4.49", "−6.09").
- ``{{ value|rating }}``: a rating with two decimals in the page's language.
- ``{% player_ratings player %}``: the player's current rating in each pool the
  visitor may read, each linking to its history (one query; used by
  templates/clubs/player_detail.html).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import formats

from clubs.models import Player
from ratings import queries

register = template.Library()

MINUS = "\u2212"


@register.filter
def rating(value: float | None) -> str:
    if value is None:
        return ""
    return formats.number_format(round(float(value), 2), 2, use_l10n=True)


@register.filter
def signed(value: float | None) -> str:
    if value is None:
        return ""
    rounded = round(float(value), 2)
    text = formats.number_format(abs(rounded), 2, use_l10n=True)
    if rounded > 0:
        return "+" + text
    if rounded < 0:
        return MINUS + text
    return text


@register.inclusion_tag("ratings/_player_ratings.html", takes_context=True)
def player_ratings(context: template.Context, player: Player) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"player": player, "ratings": queries.player_ratings(user, player)}
