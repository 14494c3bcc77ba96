"""Every change to matches, games, turns and results, one module per concern.

    matches         creating a match, scorer mode, cancelling a match
    recording       turns recorded move by move, the end of a game and of the
                    match, closing a money session, a loss on time
    bulk_recording  a whole record stored at once, each action checked as
                    record_turn checks it
    clock_readings  what the clocks read by the server's time stamps
    undo            taking back the last turn
    results         result reports, confirmation, disputes, overrides, the
                    reports that become official when nobody answered
    matfiles        importing a ``.mat`` match file
    archives        importing a whole zip of match files (scan, review, import)
    xgfiles         importing an eXtreme Gammon ``.xg`` match file
    sides           who a user is in a match (shared by the modules above)

Callers use the names gathered here (``services.record_turn(...)``).  A change
locks the match row first, then the rows it writes, through base.locking.
"""

from games.services.archives import (
    import_archive,
    review_names,
    scan_archive,
    start_import,
    upload_archive,
)
from games.services.bulk_recording import Stored, record_games
from games.services.clock_readings import clocks_now
from games.services.matches import cancel_match, create_match, set_scorer_mode
from games.services.matfiles import import_mat
from games.services.recording import (
    Recorded,
    RecordingError,
    TurnConflict,
    end_session,
    record_timeout,
    record_turn,
)
from games.services.results import (
    absent_players,
    answers_for_absent,
    awaits_official,
    confirm_overdue_reports,
    confirm_report,
    decide_dispute,
    dispute_report,
    enters_officially,
    override_result,
    submit_report,
    take_back_override,
)
from games.services.undo import agree_undo, arbiter_undo, request_undo
from games.services.xgfiles import import_xg

__all__ = [
    "Recorded",
    "RecordingError",
    "Stored",
    "TurnConflict",
    "absent_players",
    "agree_undo",
    "answers_for_absent",
    "arbiter_undo",
    "awaits_official",
    "cancel_match",
    "clocks_now",
    "confirm_overdue_reports",
    "confirm_report",
    "create_match",
    "decide_dispute",
    "dispute_report",
    "end_session",
    "enters_officially",
    "import_archive",
    "import_mat",
    "import_xg",
    "override_result",
    "record_games",
    "record_timeout",
    "record_turn",
    "request_undo",
    "review_names",
    "scan_archive",
    "set_scorer_mode",
    "start_import",
    "submit_report",
    "take_back_override",
    "upload_archive",
]
