"""Events the games app announces to the apps above it."""

from base.events import Event

# A match result became official (confirmed, decided by the arbiter, or overridden).
result_confirmed = Event("games.result_confirmed", fields=("match_id",))

# An official result stopped counting (the match was cancelled): whatever was
# computed from it (ratings, standings) must be computed again.
result_withdrawn = Event("games.result_withdrawn", fields=("match_id",))
