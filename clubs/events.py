"""Events the clubs app announces to the apps above it."""

from base.events import Event

# Sent inside the merge transaction, before every foreign key to the duplicate
# is moved to the survivor.  Unlike other events, subscribers act at once (in
# the same transaction): only rows that cannot simply be moved (one row per
# player, such as a rating) need a subscriber, which folds them together.
player_merged = Event("clubs.player_merged", fields=("survivor_id", "duplicate_id"))
