"""Pages of a whole archive of match files (games.services.archives): the upload,
the review of the players' names, the progress (polled as JSON) and the report.

Only whoever may import the archive (``matches.import_archive`` on its
federation or club) sees it: another visitor gets a 404, as if it did not exist.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Case, IntegerField, Value, When
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from base.engine_messages import warning_message
from clubs import permissions
from clubs.models import Club, Discipline, Federation, Player, Role
from clubs.queries import name_key
from clubs.views.accounts import signed_in
from games import archive_extras, services
from games.models import ArchiveFileState, ArchiveImport, ArchiveName, ArchiveState
from games.services import archives

FILES_PER_PAGE = 200
ARCHIVE_ACTION = "matches.import_archive"
SIMILAR_SHOWN = 12  # players offered for a name nobody bears exactly


def _candidates(user: Any) -> tuple[list[Federation], list[Club]]:
    """The federations and clubs where ``user`` holds an admin's role (or every
    federation for a site admin): where to ask the policy, which decides."""
    if permissions.is_site_admin(user):
        federations = Federation.objects.all()
    else:
        federations = Federation.objects.filter(
            id__in=permissions.scope_ids(user, Role.FEDERATION_ADMIN, Federation)
        )
    clubs = Club.objects.filter(
        id__in=permissions.scope_ids(user, Role.CLUB_ADMIN, Club)
    ).select_related("federation")
    return list(federations.order_by("name")), list(clubs.order_by("name"))


def _scopes(user: Any) -> list[tuple[str, str]]:
    """The federations and clubs whose archives ``user`` imports
    (``matches.import_archive``), as choices."""
    federations, clubs = _candidates(user)
    federations = [f for f in federations if permissions.can(user, ARCHIVE_ACTION, f)]
    whole = {f.pk for f in federations}
    choices = [(f"f{f.pk}", str(f)) for f in federations]
    choices += [
        (f"c{c.pk}", f"{c} ({c.federation})")
        for c in clubs
        if c.federation_id not in whole and permissions.can(user, ARCHIVE_ACTION, c)
    ]
    return choices


def may_import_archives(user: Any) -> bool:
    """Whether ``user`` imports archives for some federation or club (no query for
    one without an admin's role: the roles are cached on the user)."""
    if not user.is_authenticated:
        return False
    if not permissions.is_site_admin(user) and not (
        permissions.scope_ids(user, Role.FEDERATION_ADMIN, Federation)
        or permissions.scope_ids(user, Role.CLUB_ADMIN, Club)
    ):
        return False
    return bool(_scopes(user))


class ArchiveUploadForm(forms.Form):
    scope = forms.ChoiceField(label=gettext_lazy("Into"))
    discipline = forms.ModelChoiceField(
        queryset=Discipline.objects.order_by("name"), label=gettext_lazy("Discipline")
    )
    file = forms.FileField(
        label=gettext_lazy("Archive (.zip)"),
        help_text=gettext_lazy(
            "A zip of up to 10,000 match files (.mat, .txt, .sgf, .xg); every play is checked."
        ),
    )

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["scope"].choices = _scopes(user)  # type: ignore[attr-defined]

    def target(self) -> tuple[Federation, Club | None]:
        kind, pk = self.cleaned_data["scope"][0], int(self.cleaned_data["scope"][1:])
        if kind == "c":
            club = Club.objects.select_related("federation").get(pk=pk)
            return club.federation, club
        return Federation.objects.get(pk=pk), None


def _visible(request: HttpRequest, pk: int) -> ArchiveImport:
    archive = get_object_or_404(
        ArchiveImport.objects.select_related("federation", "club", "discipline"), pk=pk
    )
    if not permissions.can(request.user, ARCHIVE_ACTION, archives.archive_scope(archive)):
        raise Http404
    return archive


@signed_in
@require_http_methods(["GET", "POST"])
def archive_list(request: HttpRequest) -> HttpResponse:
    """Upload an archive; the archives of the federations and clubs one imports for."""
    scopes = _scopes(request.user)
    if not scopes:
        raise PermissionDenied(_("Only a federation's or a club's admins import archives."))
    form = ArchiveUploadForm(request.user, request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        federation, club = form.target()
        try:
            archive = services.upload_archive(
                form.cleaned_data["file"],
                by=request.user,
                federation=federation,
                discipline=form.cleaned_data["discipline"],
                club=club,
            )
        except ValidationError as error:
            form.add_error("file", error)
        else:
            messages.success(request, _("The archive has been uploaded: its files are being read."))
            return redirect("games:archive", pk=archive.pk)
    federation_ids = [int(value[1:]) for value, _label in scopes if value[0] == "f"]
    club_ids = [int(value[1:]) for value, _label in scopes if value[0] == "c"]
    recent = ArchiveImport.objects.filter(
        federation_id__in=federation_ids
    ) | ArchiveImport.objects.filter(club_id__in=club_ids)
    return render(
        request,
        "games/archive_list.html",
        {"form": form, "archives": recent.select_related("federation", "club")[:50]},
    )


def _choices(
    row: ArchiveName, by_key: dict[str, list[Player]], players: dict[int, Player]
) -> list[tuple[str, str]]:
    """What a name may be: the players proposed (or, for a name nobody bears, those
    who share a word of it), a new player, or nobody (their files are left out)."""
    found = [players[pk] for pk in row.candidates if pk in players]
    if not found:
        words = set(name_key(row.name).split())
        seen: set[int] = set()
        for key, bearers in by_key.items():
            if words & set(key.split()):
                for player in bearers:
                    if player.pk not in seen:
                        seen.add(player.pk)
                        found.append(player)
        found = found[:SIMILAR_SHOWN]
    if row.player is not None and row.player not in found:
        found.insert(0, row.player)
    choices = [(f"p{p.pk}", str(p)) for p in found]
    if row.name.strip():
        choices.append(("new", _("a new player “%(name)s”") % {"name": row.name}))
    choices.append(("skip", _("leave their files out")))
    return choices


def _current(row: ArchiveName) -> str:
    if row.decision == ArchiveName.Decision.PLAYER and row.player_id is not None:
        return f"p{row.player_id}"
    return row.decision


def _decisions(request: HttpRequest, rows: list[ArchiveName]) -> dict[str, Player | str]:
    decisions: dict[str, Player | str] = {}
    chosen = {row.pk: request.POST.get(f"name-{row.pk}", "") for row in rows}
    ids = [int(v[1:]) for v in chosen.values() if v.startswith("p") and v[1:].isdigit()]
    players = Player.objects.in_bulk(ids)
    for row in rows:
        value = chosen[row.pk]
        if value in ("new", "skip"):
            decisions[row.name] = value
        elif value.startswith("p") and value[1:].isdigit() and int(value[1:]) in players:
            decisions[row.name] = players[int(value[1:])]
    return decisions


@signed_in
@require_http_methods(["GET", "POST"])
def archive_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """An archive: its progress; the review of its names; its report per file."""
    archive = _visible(request, pk)
    reviewing = archive.state in (ArchiveState.SCANNED, ArchiveState.REVIEWING)
    rows = list(archive.names.select_related("player")) if reviewing else []
    if request.method == "POST":
        if not reviewing:
            messages.error(request, _("The names can no longer be changed."))
            return redirect("games:archive", pk=archive.pk)
        try:
            services.review_names(archive, _decisions(request, rows), by=request.user)
            if "start" in request.POST:
                services.start_import(archive, by=request.user)
        except ValidationError as error:
            for message in error.messages:
                messages.error(request, message)
        else:
            if "start" in request.POST:
                messages.success(request, _("The import has started."))
            else:
                messages.success(request, _("The names have been saved."))
        return redirect("games:archive", pk=archive.pk)
    names = []
    if rows:
        by_key = archives.federation_players_by_key(archive.federation_id)
        players = {p.pk: p for bearers in by_key.values() for p in bearers}
        names = [
            {"row": row, "choices": _choices(row, by_key, players), "current": _current(row)}
            for row in rows
        ]
    page = None
    if archive.state in (ArchiveState.IMPORTING, ArchiveState.DONE):
        # Refusals first, then warnings: what the admin has to read.
        order = Case(
            When(state=ArchiveFileState.REFUSED, then=Value(0)),
            When(state=ArchiveFileState.WARNINGS, then=Value(1)),
            default=Value(2),
            output_field=IntegerField(),
        )
        files = archive.files.exclude(state=ArchiveFileState.PENDING).select_related("match")
        page = Paginator(files.order_by(order, "index"), FILES_PER_PAGE).get_page(
            request.GET.get("page")
        )
        for file in page:
            file.message = (  # type: ignore[attr-defined]
                archives.refusal_message(file) if file.state == ArchiveFileState.REFUSED else ""
            )
            file.warning_texts = (  # type: ignore[attr-defined]
                [warning_message(w) for w in file.match.import_warnings] if file.match else []
            )
    return render(
        request,
        "games/archive_detail.html",
        {
            "archive": archive,
            "progress": progress(archive),
            "names": names,
            "undecided": sum(1 for row in rows if not row.decision),
            "page": page,
            "reviewing": reviewing,
            "extras": archive_extras.blocks(request, archive),
        },
    )


@signed_in
@require_GET
def archive_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """The archive's state and counts, polled by its page while the jobs run."""
    return JsonResponse(progress(_visible(request, pk)))


def progress(fresh: ArchiveImport) -> dict[str, Any]:
    """The archive's state and counts, as the page and its poll show them (read the
    archive just before)."""
    total = fresh.files_total or 1
    return {
        "state": fresh.state,
        "state_label": str(fresh.get_state_display()),
        "files_total": fresh.files_total,
        "files_scanned": fresh.files_scanned,
        "files_done": fresh.files_done,
        "imported": fresh.imported,
        "warnings": fresh.warnings,
        "refused": fresh.refused,
        "duplicate": fresh.duplicate,
        "percent": round(100 * fresh.files_done / total),
        "finished": fresh.state in (ArchiveState.DONE, ArchiveState.FAILED),
    }
