"""Every change to tournaments, entries, rounds, pairings and standings, by concern:

    setup          settings and lifecycle (draft -> registration -> check_in ->
                   running -> finished)
    entries        the field: entries, check-in, seeds, withdrawals (and undoing them)
    rounds         pairing (and undoing it), starting and closing rounds, forfeits,
                   results
    standings      standings snapshots and what a confirmed result owes a tournament
    qualification  the places of one tournament entering another
    visibility     whose results are hidden (the rule every page asks)
    common         locks, state checks, the audit log, the core's errors in words

Each service takes ``by`` (the acting user; None = the system: a task, a
command, the demo), checks the permission through clubs.permissions, does its
work in one transaction and writes the audit log.  Bad input raises Django's
ValidationError with a message saying what and where; a refused action
raises PermissionDenied.  The pairing and standings maths is the pure core's
(``tournaments.core``), reached through ``tournaments.adapters``.  Services
that lock rows take them through ``base.locking``, in its documented order.

Callers use the package (``services.pair_next_round``); the names below are
its public ones.
"""

from tournaments.services.common import OPEN_STATES, bump_where_names_show, core_error
from tournaments.services.entries import (
    add_entry,
    check_in,
    reinstate,
    reinstate_problem,
    remove_entry,
    seed_entries,
    withdraw,
)
from tournaments.services.qualification import enter_qualifiers, final_rows
from tournaments.services.rounds import (
    close_round,
    edit_pairings,
    enter_result,
    forfeit,
    pair_next_round,
    set_silent,
    start_round,
    unpair_problem,
    unpair_round,
)
from tournaments.services.setup import (
    FINISHED_FIELDS,
    IDENTITY_FIELDS,
    PLAY_FIELDS,
    RUNNING_FIELDS,
    SETTINGS_FIELDS,
    TRANSITIONS,
    create_tournament,
    finish_tournament,
    set_state,
    start_tournament,
    update_tournament,
)
from tournaments.services.standings import (
    STALE_REQUEST,
    compute_standings,
    on_analysis_changed,
    on_result_confirmed,
    on_result_withdrawn,
    publish_standings,
    request_standings,
    standings_rows,
)

__all__ = [
    "FINISHED_FIELDS",
    "IDENTITY_FIELDS",
    "OPEN_STATES",
    "PLAY_FIELDS",
    "RUNNING_FIELDS",
    "SETTINGS_FIELDS",
    "STALE_REQUEST",
    "TRANSITIONS",
    "add_entry",
    "bump_where_names_show",
    "check_in",
    "close_round",
    "compute_standings",
    "core_error",
    "create_tournament",
    "edit_pairings",
    "enter_qualifiers",
    "enter_result",
    "final_rows",
    "finish_tournament",
    "forfeit",
    "on_analysis_changed",
    "on_result_confirmed",
    "on_result_withdrawn",
    "pair_next_round",
    "publish_standings",
    "reinstate",
    "reinstate_problem",
    "remove_entry",
    "request_standings",
    "seed_entries",
    "set_silent",
    "set_state",
    "standings_rows",
    "start_round",
    "start_tournament",
    "unpair_problem",
    "unpair_round",
    "update_tournament",
    "withdraw",
]
