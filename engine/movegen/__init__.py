"""Legal plays: every distinct way to play a roll under the variant's rules.

The generator works on mutable lists of counts in the mover's numbering, with
the opponent's counts gathered into the mover's numbering once per call (so a
landing check is one list lookup), and builds `Play` objects only for the
distinct results.  Rules come from `Variant` fields (RULES.md §1, §2, §5):

- a point is closed by ``closes_at`` opposing checkers; with ``hitting`` a lone
  opposing checker is hit;
- checkers on the bar (index 25) enter first, with die ``n`` onto ``25 - n``;
- bear-off when all checkers are home (1..6), with the higher-point rule;
- ``head_rule``: one checker leaves the head (24) per turn, two on a side's
  first roll with one of ``head_exception_doubles`` when one cannot play it all;
- ``six_block_rule``: no step may complete six consecutive points along the
  opponent's path with no opposing checker ahead of them;
- forced moves: play as many dice as possible, then the most pips (so with one
  die playable out of two, the larger one; with three dice (Garanquet) the
  dice left unplayed are the smallest possible, which for every three-dice
  roll is the same as the most pips).

The short family's special rules (RULES §3, §4) go through `special`, never
through the fast generators:

- ``pinning`` (Plakoto): landing on a lone opposing checker pins it; a pinned
  checker cannot move, and its point is closed to its owner while pinned;
  pins and the mother live in ``Position.extra`` (engine/rules/board.py);
- ``no_hit_and_hide_in_home`` (Caucasian): a checker that hit in its owner's
  home may not, that turn, land on an own checker or bear off, unless no
  other step plays that die (checked step by step);
- ``no_hit_and_run_in_home`` (Tavla): such a checker may not move again;
- ``forced_bear_off`` (Tavla): of the plays the forced-move rules allow, those
  that bear off the most checkers ("checker on 3, 5-2: bear off with the 5");
- ``optional_dice`` (Old English) and ``partial_bear_off`` (Nauka, when the
  turn starts with bear-off allowed): any non-empty part of a legal sequence
  is a legal play; the empty play only when nothing can move;
- ``max_per_point`` (Old English): no step onto a point holding that many.

Checkers are interchangeable: a step from a point is the hitter's only when
every checker of the mover on that point hit in the home this turn (else
another checker is taken to move).

`explode` is the Nuclear bomb (board change only; the game decides when).

The modules, each importing only those listed before it:

- `primitives`: the step table, the exact encoding of a result, fast `Play`
  construction, the per-variant rule tables, `dice_moves`, `is_first_turn`;
- `search`: the general search (head and six-block rules, three dice);
- `fast`: the generators written out for variants without those rules;
- `reaching`: `plays_reaching`, the legal plays that end on a given row of
  the mover's checkers, by the fast generators' walks cut down to that row,
  and `nothing_enters`, a roll that leaves a checker on the bar unplayed;
- `special`: the short family's special rules, and `explode`;
- `legal`: `legal_plays`, which picks the generator;
- `refusals`: why a written play is refused, in words and codes;
- `matching_special`, `matching`: `find_play`, a written play matched to the
  legal play it describes; `dice_routes`, the die sequences that carry one
  written journey; `play_routes`, a play with its other legal dice orders.
"""

from __future__ import annotations

from engine.movegen.legal import legal_plays
from engine.movegen.matching import dice_routes, find_play, play_routes
from engine.movegen.primitives import dice_moves, is_first_turn
from engine.movegen.reaching import nothing_enters, plays_reaching
from engine.movegen.special import explode

__all__ = [
    "dice_moves",
    "dice_routes",
    "explode",
    "find_play",
    "is_first_turn",
    "legal_plays",
    "nothing_enters",
    "play_routes",
    "plays_reaching",
]
