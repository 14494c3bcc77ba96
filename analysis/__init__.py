"""Match analysis: the equity each player lost per decision, and their PR.

- ``analysis.core``: plain Python over the engine's match records (no Django,
  no I/O): which turns are decisions, the error of each, PR and the marks
  (see /work/shared/ANALYSIS.md for what those mean to players);
- ``analysis.analysers``: the evaluators the core asks, looked up by name;
  ``bgsage`` (MPL-2.0) is the product's one, behind a single adapter module.
"""
