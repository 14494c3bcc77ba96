"""The pure core of tournaments: pairings, brackets and standings over plain data.

No Django, no database, no I/O (a test checks the imports): the tournaments
app's adapters load rows into these types, call these functions and write the
answers back.  Modules:

    types          Entry, MatchResult, Pairing, Round, tie order
    errors         TournamentError and its kinds, each with a stable code
    matching       maximum-weight (perfect) matching: Edmonds' blossom algorithm
    swiss          Swiss rounds (fixed or until N losses)
    round_robin    Berger tables, double and truncated round robins
    bracket        bracket trees (matches with feeder seats) and their state
    elimination    single elimination with seeding and byes
    consolation    main flight with consolation and last chance
    double_elim    double elimination with grand-final reset
    groups         snake groups, knock-out from groups, cups by total wins
    tiebreaks      tie-break values (FIDE C.07 adapted)
    standings      ranked standings with shared places or lots
    qualification  standings -> seeded entries of another event
    tables         match counts per player, places in a bracket's flights
"""

from tournaments.core.bracket import BYE, Bracket, BracketMatch, Seat
from tournaments.core.consolation import main_with_consolation
from tournaments.core.double_elim import double_elimination
from tournaments.core.elimination import bracket_size, seed_positions, single_elimination
from tournaments.core.errors import (
    BracketError,
    ConfigError,
    PairingError,
    QualificationError,
    TournamentError,
)
from tournaments.core.groups import (
    Group,
    cup_standings,
    group_rounds,
    group_standings,
    knockout_from_groups,
    snake_groups,
)
from tournaments.core.qualification import qualify, qualify_many
from tournaments.core.round_robin import berger_table, round_robin_rounds
from tournaments.core.standings import StandingRow, StandingsSettings, compute_standings
from tournaments.core.swiss import (
    SwissRecord,
    SwissSettings,
    pair_swiss_round,
    swiss_finished,
    swiss_records,
)
from tournaments.core.tables import BracketPlace, bracket_places, result_counts
from tournaments.core.tiebreaks import TIEBREAK_CODES, UNAVAILABLE_CODES, offered_codes
from tournaments.core.types import Entry, EntryId, MatchResult, Pairing, Round, initial_order

__all__ = [
    "BYE",
    "TIEBREAK_CODES",
    "UNAVAILABLE_CODES",
    "Bracket",
    "BracketError",
    "BracketMatch",
    "BracketPlace",
    "ConfigError",
    "Entry",
    "EntryId",
    "Group",
    "MatchResult",
    "Pairing",
    "PairingError",
    "QualificationError",
    "Round",
    "Seat",
    "StandingRow",
    "StandingsSettings",
    "SwissRecord",
    "SwissSettings",
    "TournamentError",
    "berger_table",
    "bracket_places",
    "bracket_size",
    "compute_standings",
    "cup_standings",
    "double_elimination",
    "group_rounds",
    "group_standings",
    "initial_order",
    "knockout_from_groups",
    "main_with_consolation",
    "offered_codes",
    "pair_swiss_round",
    "qualify",
    "qualify_many",
    "result_counts",
    "round_robin_rounds",
    "seed_positions",
    "single_elimination",
    "snake_groups",
    "swiss_finished",
    "swiss_records",
]
