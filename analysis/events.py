"""Events the analysis app announces to the apps above it."""

from base.events import Event

# A match's stored analysis changed (analysed, analysed again, or refused):
# whatever shows its PR (a tournament's PR tie-break, its pages) follows.
analysis_changed = Event("analysis.analysis_changed", fields=("match_id",))
