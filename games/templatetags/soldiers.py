"""Soldiers (RULES.md §3.1) on the pages: ``{% class_legend %}``, the classes'
letters, shapes and one-line rules wherever a Soldiers match is shown (board,
replay, match page, scoresheet, rules page), and ``{{ discipline|is_soldiers }}``.

The shapes are those games/static/games/board.js draws on the checkers
(``classShape``); they are drawn here again, on the server, because the match
page and the printed scoresheet load no script.
"""

from __future__ import annotations

import math
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from base.engine_messages import CLASS_NAMES

register = template.Library()

VARIANT = "soldiers"

# The legend's checker: board.js's light side, radius 22 in a 48-unit box.
FILL, STROKE, INK = "#f3ecdc", "#6b5a45", "#2a2623"
PIN_STROKE = "#c62828"
R = 22
SIZE = R * 0.66  # board.js: classShape(..., r * 0.66, ...)

SHAPES = {
    "K": _("ring"),
    "G": _("square"),
    "D": _("diamond"),
    "E": _("hexagon"),
    "O": _("triangle"),
    "P": _("no sign"),
}

RULES = {
    "K": _(
        "Moves forwards and also backwards; at the end of a turn it may stand no "
        "further back than at its start, unless it hit in that turn."
    ),
    "G": _(
        "Alone on a point it is not a blot: it is captured only when two different "
        "opposing checkers land on its point in one turn."
    ),
    "D": _(
        "Never hits: landing on a lone opposing checker it pins it, and the pin lasts "
        "while a checker of the druid's side stands on that point."
    ),
    "E": _("Moves only with an even die (2, 4, 6), entering and bearing off included."),
    "O": _("Moves only with an odd die (1, 3, 5), entering and bearing off included."),
    "P": _("An ordinary checker of short nardy."),
}


@register.filter
def is_soldiers(discipline: Any) -> bool:
    """Whether the discipline (or a variant name) plays Soldiers."""
    return getattr(discipline, "variant", discipline) == VARIANT


def _n(value: float) -> str:
    return f"{value:.1f}"


def _polygon(n: int, turn: float, radius: float) -> SafeString:
    points = " ".join(
        f"{_n(24 + radius * math.cos(turn + 2 * math.pi * i / n))},"
        f"{_n(24 + radius * math.sin(turn + 2 * math.pi * i / n))}"
        for i in range(n)
    )
    return format_html(
        '<polygon points="{}" fill="none" stroke="{}" stroke-width="2"/>', points, INK
    )


def _shape(letter: str) -> SafeString:
    if letter == "K":
        return format_html(
            '<circle cx="24" cy="24" r="{}" fill="none" stroke="{}" stroke-width="2"/>',
            _n(SIZE),
            INK,
        )
    if letter == "G":
        h = SIZE * 0.8
        return format_html(
            '<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="2"/>',
            _n(24 - h),
            _n(24 - h),
            _n(2 * h),
            _n(2 * h),
            INK,
        )
    if letter == "D":
        return _polygon(4, -math.pi / 2, SIZE * 1.05)
    if letter == "E":
        return _polygon(6, 0, SIZE)
    if letter == "O":
        return _polygon(3, -math.pi / 2, SIZE * 1.2)
    return SafeString("")


def checker_icon(letter: str, pinned: bool = False) -> SafeString:
    """A checker of class ``letter`` as the board draws it, as inline SVG
    (decorative: the legend says the letter, the name and the shape in words)."""
    letter_text = (
        format_html(
            '<text x="24" y="29" text-anchor="middle" font-size="14" font-weight="700" '
            'fill="{}" font-family="system-ui, sans-serif">{}</text>',
            INK,
            letter,
        )
        if letter != "P"
        else ""
    )
    return format_html(
        '<svg class="class-icon" viewBox="0 0 48 48" width="32" height="32" aria-hidden="true" '
        'focusable="false"><circle cx="24" cy="24" r="{}" fill="{}" stroke="{}" '
        'stroke-width="{}"/>{}{}</svg>',
        R - 1,
        FILL,
        PIN_STROKE if pinned else STROKE,
        5 if pinned else 2,
        _shape(letter),
        letter_text,
    )


def legend_rows() -> list[dict[str, Any]]:
    return [
        {
            "letter": letter,
            "name": CLASS_NAMES[letter],
            "shape": SHAPES[letter],
            "rule": RULES[letter],
            "icon": checker_icon(letter),
        }
        for letter in "KGDEOP"
    ]


@register.inclusion_tag("games/_class_legend.html")
def class_legend(
    rules_link: bool = True, pins: bool = True, compact: bool = False
) -> dict[str, Any]:
    """The legend of the classes; ``pins``: with the pinned checker's row,
    ``rules_link``: with a link to the rules page, ``compact``: one line of
    icons, letters and names without the rules (a printed scoresheet's)."""
    return {
        "rows": legend_rows(),
        "pinned_icon": checker_icon("P", pinned=True),
        "pins": pins,
        "rules_link": rules_link,
        "compact": compact,
    }
