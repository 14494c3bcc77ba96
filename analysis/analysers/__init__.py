"""The analysers, looked up by name (as the engine looks up variants).

``get_analyser(name, depth=1)`` gives an ``analysis.core.Analyser``.  Each
analyser lives in its own module, imported only when asked for, so that its
evaluator (a compiled library, its weights) loads where it is used:

- ``bgsage`` (``analysis.analysers.bgsage_analyser``): the Open Sage network,
  MPL-2.0, the product's analyser; standard backgammon (``short``) only.

Another analyser is a module with a class following ``Analyser`` and a line
in ``_FACTORIES``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from analysis.core.model import Analyser, AnalysisError

DEFAULT: Final = "bgsage"
DEFAULT_DEPTH: Final = 1


def _bgsage(depth: int, threads: int) -> Analyser:
    from analysis.analysers.bgsage_analyser import BgsageAnalyser

    return BgsageAnalyser(depth=depth, threads=threads)


_FACTORIES: Final[dict[str, Callable[[int, int], Analyser]]] = {"bgsage": _bgsage}

ANALYSERS: Final = tuple(sorted(_FACTORIES))


def get_analyser(name: str = DEFAULT, *, depth: int = DEFAULT_DEPTH, threads: int = 1) -> Analyser:
    """The analyser called ``name`` at ``depth`` plies (XG's numbering: 1 is the
    network's own evaluation); ``threads`` for the evaluator's own batches.

    Raises ``AnalysisError``: ``unknown_analyser``, or the analyser's ``bad_depth``.
    """
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise AnalysisError(
            "unknown_analyser",
            f"unknown analyser {name!r}; known: {', '.join(ANALYSERS)}",
            analyser=name,
            known=list(ANALYSERS),
        ) from None
    return factory(depth, threads)
