"""Pages and JSON endpoints of the games app (a plain list: each feature appends its routes)."""

from django.urls import path

from base.throttles import limit_posts
from games.views import archives, board, matches, reports, rules

app_name = "games"

urlpatterns = [
    # The board: live recording and following, replay of a game.
    path("matches/<int:pk>/board/", board.board, name="board"),
    path("matches/<int:pk>/state.json", board.state, name="state"),
    path("matches/<int:pk>/plays.json", board.plays, name="plays"),
    path("matches/<int:pk>/turns/", board.record, name="record"),
    path("matches/<int:pk>/undo/", board.undo, name="undo"),
    path("matches/<int:pk>/scorer/", board.scorer, name="scorer"),
    path("matches/<int:pk>/games/<int:number>/replay/", board.replay, name="replay"),
    # Matches and results (games.views.matches, games.views.reports).
    path("matches/", matches.match_list, name="match_list"),
    path("matches/new/", matches.match_create, name="match_new"),
    # Posts that cost (the engine reads a file) are limited per user (base.throttles).
    path("matches/import/", limit_posts("imports")(matches.match_import), name="match_import"),
    path("matches/<int:pk>/", matches.match_detail, name="match"),
    path("matches/<int:pk>/match.mat", matches.export_mat, name="match_mat"),
    path("matches/<int:pk>/match.sgf", matches.export_sgf, name="match_sgf"),
    path("matches/<int:pk>/match.json", matches.export_record, name="match_record"),
    path("matches/<int:pk>/timeout/", matches.match_timeout, name="match_timeout"),
    path("matches/<int:pk>/report/", limit_posts("reports")(reports.submit), name="match_report"),
    path("matches/<int:pk>/override/", reports.override, name="match_override"),
    path("matches/<int:pk>/cancel/", reports.cancel, name="match_cancel"),
    path("reports/<int:pk>/confirm/", reports.confirm, name="report_confirm"),
    path("reports/<int:pk>/dispute/", reports.dispute, name="report_dispute"),
    path("reports/<int:pk>/decide/", reports.decide, name="report_decide"),
    path("staff/disputes/", reports.disputes, name="disputes"),
    # Whole archives of match files (games.views.archives).
    path("archives/", limit_posts("archives")(archives.archive_list), name="archives"),
    path("archives/<int:pk>/", archives.archive_detail, name="archive"),
    path("archives/<int:pk>/progress.json", archives.archive_progress, name="archive_progress"),
    # How a variant is played (games.views.rules).
    path("rules/soldiers/", rules.soldiers, name="rules_soldiers"),
]
