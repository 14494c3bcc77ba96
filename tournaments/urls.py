"""Pages of the tournaments app: the organizer console, its printable sheets
and the public pages."""

from django.urls import path, register_converter

from tournaments.views import console, console_undo, exports, public, registration, results_inline
from tournaments.views import print as sheets


class SheetFormatConverter:
    """The format of a downloaded table: csv or xlsx (anything else is a 404)."""

    regex = "csv|xlsx"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(SheetFormatConverter, "sheetformat")

app_name = "tournaments"

urlpatterns = [
    # Public
    path("f/<slug:federation>/tournaments/", public.tournament_list, name="public_list"),
    path("f/<slug:federation>/t/<slug:slug>/", public.tournament_page, name="public"),
    path(
        "f/<slug:federation>/t/<slug:slug>/round/<slug:flight>/<int:number>/",
        public.round_page,
        name="public_round",
    ),
    path(
        "f/<slug:federation>/t/<slug:slug>/standings/",
        public.standings_page,
        name="public_standings",
    ),
    path(
        "f/<slug:federation>/t/<slug:slug>/bracket/<slug:flight>/",
        public.bracket_page,
        name="public_bracket",
    ),
    path("f/<slug:federation>/t/<slug:slug>/entries/", public.entries_page, name="public_entries"),
    path("f/<slug:federation>/t/<slug:slug>/find/", public.find_player, name="public_find"),
    path(
        "f/<slug:federation>/t/<slug:slug>/player/<int:entry>/",
        public.player_page,
        name="public_player",
    ),
    # Public files: what the pages above show
    path(
        "f/<slug:federation>/t/<slug:slug>/standings.<sheetformat:fmt>",
        exports.public_standings,
        name="public_standings_file",
    ),
    path(
        "f/<slug:federation>/t/<slug:slug>/round/<slug:flight>/<int:number>/pairings.<sheetformat:fmt>",
        exports.public_pairings,
        name="public_pairings_file",
    ),
    # The organizer console
    path("organize/", console.tournament_list, name="organize"),
    path("organize/new/", console.tournament_new, name="new"),
    path("organize/<int:pk>/", console.console, name="console"),
    path("organize/<int:pk>/settings/", console.tournament_settings, name="settings"),
    path("organize/<int:pk>/state/", console.change_state, name="state"),
    path("organize/<int:pk>/entries/add/", console.entry_add, name="entry_add"),
    path(
        "organize/<int:pk>/entries/<int:eid>/check-in/",
        console.entry_check_in,
        name="entry_check_in",
    ),
    path(
        "organize/<int:pk>/entries/<int:eid>/withdraw/",
        console.entry_withdraw,
        name="entry_withdraw",
    ),
    path(
        "organize/<int:pk>/entries/<int:eid>/reinstate/",
        console_undo.entry_reinstate,
        name="entry_reinstate",
    ),
    # Registration at scale (views.registration)
    path("organize/<int:pk>/entries/bulk/", registration.bulk_entries, name="entries_bulk"),
    path(
        "organize/<int:pk>/entries/bulk/confirm/",
        registration.bulk_entries_confirm,
        name="entries_bulk_confirm",
    ),
    path("organize/<int:pk>/entries/check-in-all/", registration.check_in_all, name="check_in_all"),
    path(
        "organize/<int:pk>/entries/check-in-list/",
        registration.check_in_list,
        name="check_in_list",
    ),
    path(
        "organize/<int:pk>/self-check-in/",
        registration.self_check_in_window,
        name="self_check_in_window",
    ),
    path(
        "organize/<int:pk>/self-check-in/qr.svg",
        registration.self_check_in_qr,
        name="self_check_in_qr",
    ),
    path("t/<str:token>/check-in/", registration.self_check_in, name="self_check_in"),
    path("organize/<int:pk>/seeds/", console.seeds, name="seeds"),
    path("organize/<int:pk>/qualifiers/", console.qualifiers, name="qualifiers"),
    path("organize/<int:pk>/rounds/pair/", console.round_pair, name="round_pair"),
    path("organize/<int:pk>/rounds/<int:rid>/start/", console.round_start, name="round_start"),
    path("organize/<int:pk>/rounds/<int:rid>/close/", console.round_close, name="round_close"),
    path("organize/<int:pk>/rounds/<int:rid>/silent/", console.round_silent, name="round_silent"),
    path(
        "organize/<int:pk>/rounds/<int:rid>/unpair/", console_undo.round_unpair, name="round_unpair"
    ),
    path(
        "organize/<int:pk>/rounds/<int:rid>/pairings/",
        console.pairings_edit,
        name="pairings_edit",
    ),
    path(
        "organize/<int:pk>/rounds/<int:rid>/print/pairings/",
        sheets.pairings_sheet,
        name="print_pairings",
    ),
    path(
        "organize/<int:pk>/rounds/<int:rid>/print/scoresheets/",
        sheets.scoresheets,
        name="print_scoresheets",
    ),
    path(
        "organize/<int:pk>/rounds/<int:rid>/tables/<int:table>/result/",
        results_inline.table_result,
        name="table_result",
    ),
    path(
        "organize/<int:pk>/standings/compute/",
        console.standings_compute,
        name="standings_compute",
    ),
    path(
        "organize/<int:pk>/standings/<int:sid>/publish/",
        console.standings_publish,
        name="standings_publish",
    ),
    # The director's files and the printable results of the whole event
    path(
        "organize/<int:pk>/export/standings.<sheetformat:fmt>",
        exports.console_standings,
        name="standings_file",
    ),
    path(
        "organize/<int:pk>/export/entries.<sheetformat:fmt>",
        exports.console_entries,
        name="entries_file",
    ),
    path(
        "organize/<int:pk>/rounds/<int:rid>/export/pairings.<sheetformat:fmt>",
        exports.console_pairings,
        name="pairings_file",
    ),
    path("organize/<int:pk>/print/results/", exports.results_sheet, name="print_results"),
    path("organize/<int:pk>/staff/", console.staff_add, name="staff_add"),
    path("organize/<int:pk>/staff/<int:aid>/revoke/", console.staff_revoke, name="staff_revoke"),
]
