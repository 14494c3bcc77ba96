"""Staff actions on rating pools: publishing a pool's list at a date, in two steps.

Step one (a POST of the date) shows a preview: how many players, the top ten,
the rated matches counted and when they were played; nothing is saved.  Step
two (a POST of the preview's date and digest) publishes it; if the ratings
changed in between, the new preview is shown to be confirmed again, so a
list is never published with numbers nobody saw.  An empty list is never
published (ratings.services refuses it, whoever asks).

Only users with ``rating_list.publish`` on the pool (clubs.permissions: its
federation's admins, site admins) see the form; the work is ratings.services',
which asks the same rule.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from clubs import permissions
from clubs.models import FederationDiscipline
from games.models import ArchiveImport
from ratings import archives, queries, services
from ratings.forms import ConfirmPublishForm, PublishForm
from ratings.models import RatingPool
from ratings.views.public import pool_page

CONFIRM = "confirm"


def _refused(request: HttpRequest, reasons: list[str]) -> None:
    for reason in reasons:
        messages.error(request, _("The list was not published: %(error)s") % {"error": reason})


def _form_errors(form: PublishForm | ConfirmPublishForm) -> list[str]:
    return [str(error) for errors in form.errors.values() for error in errors]


def _preview_page(
    request: HttpRequest,
    link: FederationDiscipline,
    pool: RatingPool,
    preview: services.ListPreview,
    *,
    changed: str = "",
) -> HttpResponse:
    context = {
        "link": link,
        "federation": link.federation,
        "discipline": link.discipline,
        "pool": pool,
        "glicko": queries.is_glicko(pool),
        "preview": preview,
        "empty_reason": services.empty_list_reason(pool, preview) if preview.is_empty else "",
        "changed": changed,
        "confirm_form": ConfirmPublishForm(
            initial={"date": preview.date, "digest": preview.digest}
        ),
        "confirm": CONFIRM,
    }
    return render(request, "ratings/publish_preview.html", context)


@require_POST
def publish(request: HttpRequest, slug: str, code: str) -> HttpResponse:
    """Preview the pool's list at the date given, or publish the previewed one."""
    link, pool = pool_page(request, slug, code)
    if pool is None:
        raise Http404(_("Nobody is rated in this discipline yet."))
    if not permissions.can(request.user, "rating_list.publish", pool):
        raise PermissionDenied(_("You may not publish this federation's rating lists."))
    back = redirect("ratings:pool", slug=slug, code=code)
    if request.POST.get("step") != CONFIRM:
        form = PublishForm(request.POST)
        if not form.is_valid():
            _refused(request, _form_errors(form))
            return back
        try:
            preview = services.preview_list(pool, form.cleaned_data["date"], by=request.user)
        except ValidationError as error:
            _refused(request, error.messages)
            return back
        return _preview_page(request, link, pool, preview)

    confirm = ConfirmPublishForm(request.POST)
    if not confirm.is_valid():
        _refused(request, _form_errors(confirm))
        return back
    try:
        published = services.publish_list(
            pool,
            confirm.cleaned_data["date"],
            by=request.user,
            expected_digest=confirm.cleaned_data["digest"],
        )
    except services.StalePreview as stale:
        return _preview_page(request, link, pool, stale.preview, changed=stale.messages[0])
    except ValidationError as error:
        _refused(request, error.messages)
        return back
    players = published.entries.count()
    messages.success(
        request,
        ngettext(
            "The list at %(date)s is published: %(players)d player.",
            "The list at %(date)s is published: %(players)d players.",
            players,
        )
        % {"date": published.date.isoformat(), "players": players},
    )
    return redirect("ratings:list", slug=slug, code=code, date=published.date)


@require_POST
def rate_archive(request: HttpRequest, pk: int) -> HttpResponse:
    """Count an imported archive's matches for the pool chosen on its page
    (ratings.archives; only its federation's admins see the form)."""
    archive = get_object_or_404(ArchiveImport, pk=pk)
    links = {str(link.pk): link for link in archives.pools_for(archive)}
    link = links.get(request.POST.get("rated_discipline", ""))
    if link is None or not archives.may_rate(request.user, link):
        raise Http404  # not a pool for this archive, or one whose admin they are not
    try:
        # One transaction: a refused choice leaves no pool created for it.
        with transaction.atomic():
            chosen = archives.rate_archive(archive, services.ensure_pool(link), by=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(
            request,
            _("The archive's matches count for %(pool)s from now on.") % {"pool": chosen.pool},
        )
    return redirect("games:archive", pk=archive.pk)
