"""Importing an eXtreme Gammon ``.xg`` match file: it becomes a recorded match.

The file is read and every play checked by the engine in ``games.xgfile``
(the one reader of the format); the checked record is then stored as every
imported record is (``matfiles.store_record``), so the match replays like one
recorded here.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from clubs.models import Discipline, Federation, Player
from games.models import Match
from games.services.matfiles import store_file


def import_xg(
    data: bytes,
    *,
    by: Any,
    player1: Player,
    player2: Player,
    discipline: Discipline,
    federation: Federation | None = None,
    source_hash: str = "",
) -> Match:
    """An ``.xg`` file becomes a recorded match between ``player1`` (XG's
    player 1, White) and ``player2``, as ``import_mat`` does for a ``.mat``
    file: a finished match opens its result report, a money session is closed
    at its final score, what the file writes otherwise than its plays give
    without changing who won the match is kept as ``Match.import_warnings``,
    and anything refused refuses the whole file, saving nothing (a
    ``ValidationError`` naming the game and turn).  A file the federation
    imported already (``source_hash``) is refused, as for ``.mat``."""
    from games.xgfile import read_xg

    return store_file(
        lambda: read_xg(data),
        source_hash=source_hash,
        by=by,
        player1=player1,
        player2=player2,
        discipline=discipline,
        federation=federation,
        scored_otherwise=_("%(discipline)s scores games differently from an .xg file."),
    )
