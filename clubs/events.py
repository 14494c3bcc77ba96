"""Events the clubs app announces to the apps above it."""

from base.events import Event

# Sent inside the merge transaction, before every foreign key to the duplicate
# is moved to the survivor.  Like every event's, its subscribers only queue work
# (they may read the duplicate's history as it was); rows that cannot simply be
# moved (one row per player, such as a rating) are folded by a ``clubs.merging``
# hook, which the merge runs right after this event.
player_merged = Event("clubs.player_merged", fields=("survivor_id", "duplicate_id"))

# What a page shows of these players or clubs changed (a name corrected, a club
# renamed, a membership entered or ended, two players merged): pages cached per
# version that show them are out of date.  Sent inside the writing transaction.
names_changed = Event("clubs.names_changed", fields=("player_ids", "club_ids"))
