"""The board's geometry for drawing, computed here so that the browser only draws.

The screen has 24 point slots.  Seen by a viewer, slot ``k`` (0..23) holds
the viewer's own point ``k + 1``: slots 0..11 run along the bottom row from
right to left, slots 12..23 along the top row from left to right, so the
viewer's home is at the bottom right and their checkers move counter-clockwise.
Which absolute location (0..23) a slot shows comes from the variant's geometry
(each side's path as absolute locations, RULES §1): nothing here depends on
the variant's name, so long nardy (same direction, heads opposite), short nardy
(opposite directions) and Chase (one shared path) all come out right, and
turning the board for the other player is the same computation.

Sides are player numbers 1 and 2 (player 1 is the engine's side 0, White
unless the opening names the colours: the board's ``white``); lists indexed by
side hold player 1 first.
"""

from __future__ import annotations

from typing import Any, cast

from engine.rules.board import BAR, OFF, Position
from engine.rules.variants import Variant
from engine.soldiers import bridge
from engine.soldiers.army import LETTERS

# Sizes in SVG user units (the browser scales the whole drawing to its width).
MARGIN = 8
LABEL = 20  # the strip with the point numbers above and below the board
FRAME = 6
POINT_W = 50
POINT_H = 200
GAP = 70  # between the top and the bottom row (dice, cube, messages)
BAR_W = 48
TRAY_W = 46
CHECKER_R = 22
HALF = 6 * POINT_W


def location_of(variant: Variant, player: int, q: int) -> int:
    """The absolute location (0..23) of ``player``'s own point ``q`` (1..24)."""
    return variant.geometry.paths[player - 1][q - 1]


def _slot_of_location(variant: Variant, viewer: int) -> list[int]:
    path = variant.geometry.paths[viewer - 1]
    slots = [0] * 24
    for k, loc in enumerate(path):
        slots[loc] = k
    return slots


def _slot_row_col(k: int) -> tuple[bool, int]:
    """(top row?, column 0..11 from the left) of slot ``k``."""
    if k < 12:
        return False, 11 - k
    return True, k - 12


def layout(variant: Variant, viewer: int) -> dict[str, Any]:
    """Where everything goes when ``viewer`` (1 or 2) looks at the board."""
    slot_of = _slot_of_location(variant, viewer)
    opponent = 3 - viewer

    def edge_of(player: int, q: int) -> tuple[bool, bool]:
        """(top row?, right half?) of ``player``'s point ``q`` on this screen."""
        top, col = _slot_row_col(slot_of[location_of(variant, player, q)])
        return top, col >= 6

    # Each side bears off beside its own point 1, on that point's row; its
    # bar checkers wait in the half of the row where its path starts (own 24).
    trays: dict[int, dict[str, Any]] = {}
    bar_top: dict[int, bool] = {}
    for player in (viewer, opponent):
        top, right = edge_of(player, 1)
        trays[player] = {"right": right, "top": top}
        bar_top[player] = edge_of(player, 24)[0]
    # One shared path (Chase): both would use the same spot; the opponent takes the other half.
    if trays[opponent] == trays[viewer]:
        trays[opponent] = {"right": trays[viewer]["right"], "top": not trays[viewer]["top"]}
    if bar_top[opponent] == bar_top[viewer]:
        bar_top[opponent] = not bar_top[viewer]

    left_tray = any(not t["right"] for t in trays.values())
    right_tray = any(t["right"] for t in trays.values())
    board_x = MARGIN + (TRAY_W if left_tray else 0)
    board_w = 2 * FRAME + 2 * HALF + BAR_W
    width = board_x + board_w + (TRAY_W if right_tray else 0) + MARGIN
    board_y = MARGIN + LABEL
    board_h = 2 * FRAME + 2 * POINT_H + GAP
    height = board_y + board_h + LABEL + MARGIN
    left_x = board_x + FRAME
    bar_x = left_x + HALF + BAR_W / 2
    right_x = left_x + HALF + BAR_W

    def column_x(col: int) -> float:
        start = left_x if col < 6 else right_x
        return start + (col % 6) * POINT_W + POINT_W / 2

    slots = []
    for k in range(24):
        top, col = _slot_row_col(k)
        slots.append(
            {
                "loc": variant.geometry.paths[viewer - 1][k],
                "x": column_x(col),
                "top": top,
                "label": k + 1,
            }
        )
    tray_x = {
        False: MARGIN + TRAY_W / 2,
        True: board_x + board_w + TRAY_W / 2,
    }
    return {
        "viewer": viewer,
        "width": width,
        "height": height,
        "board": {"x": board_x, "y": board_y, "w": board_w, "h": board_h},
        "inner": {"top": board_y + FRAME, "bottom": board_y + board_h - FRAME},
        "mid_y": board_y + board_h / 2,
        "point": {"w": POINT_W, "h": POINT_H},
        "checker_r": CHECKER_R,
        "halves": [
            {"x": left_x, "w": HALF},
            {"x": right_x, "w": HALF},
        ],
        "bar": {"x": bar_x, "w": BAR_W},
        "slots": slots,
        "slot_of_location": slot_of,
        "tray_w": TRAY_W,
        # Indexed by player - 1.
        "trays": [{"x": tray_x[trays[p]["right"]], "top": trays[p]["top"]} for p in (1, 2)],
        "bar_top": [bar_top[1], bar_top[2]],
        # A side's dice and offered cube go in the middle of its half of the board.
        "dice_x": [(right_x if p == viewer else left_x) + HALF / 2 for p in (1, 2)],
        "label_y": {"top": MARGIN + LABEL / 2, "bottom": board_y + board_h + LABEL / 2},
    }


def locations(variant: Variant, position: Position) -> dict[str, Any]:
    """Both sides' checkers by absolute location, with their bar and off counts.

    ``pinned`` (Plakoto and Soldiers, empty elsewhere) lists by side the
    absolute locations where that side's lone checker is pinned under the
    opponent's: the page draws it at the bottom of the point.  Soldiers adds
    the checkers' classes (`_classes`).
    """
    points = [[0, 0] for _ in range(24)]
    for side in (0, 1):
        row = position.sides[side]
        path = variant.geometry.paths[side]
        for q in range(1, 25):
            if row[q]:
                points[path[q - 1]][side] += row[q]
    if variant.checker_classes:
        return {**_counts(position, points), **_classes(variant, position)}
    pins = cast(tuple[tuple[int, ...], tuple[int, ...]], position.get("pinned") or ((), ()))
    return {
        **_counts(position, points),
        "pinned": [
            sorted(variant.geometry.paths[side][q - 1] for q in pins[side]) for side in (0, 1)
        ],
    }


def _counts(position: Position, points: list[list[int]]) -> dict[str, Any]:
    return {
        "points": points,
        "bar": [position.sides[0][BAR], position.sides[1][BAR]],
        "off": [position.sides[0][OFF], position.sides[1][OFF]],
        "pips": [position.pips(0), position.pips(1)],
    }


def _classes(variant: Variant, position: Position) -> dict[str, Any]:
    """Soldiers' checker classes by absolute location (RULES §3.1).

    ``classes[location][side]``: a letter (``K G D E O P``, in that order) for
    every checker ``points`` counts there, the pinned one included;
    ``bar_classes[side]`` likewise for the bar; ``pinned[side]``: the
    absolute locations where that side's checker is pinned (as in Plakoto),
    and ``pinned_classes[side]``: its class there, keyed by the location
    written as text (a JSON object's keys are strings)."""
    free, pins = bridge.board_classes(position)
    classes: list[list[list[str]]] = [[[], []] for _ in range(24)]
    pinned: list[list[int]] = [[], []]
    pinned_classes: list[dict[str, str]] = [{}, {}]
    for side in (0, 1):
        path = variant.geometry.paths[side]
        for q in range(1, 25):
            letters = free[side][q] + pins[side].get(q, "")
            classes[path[q - 1]][side] = sorted(letters, key=LETTERS.index)
            if q in pins[side]:
                pinned[side].append(path[q - 1])
                pinned_classes[side][str(path[q - 1])] = pins[side][q]
        pinned[side].sort()
    return {
        "classes": classes,
        "bar_classes": [list(free[0][BAR]), list(free[1][BAR])],
        "pinned": pinned,
        "pinned_classes": pinned_classes,
    }
