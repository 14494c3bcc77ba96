"""Staff actions on rating pools: publishing a pool's list at a date.

Only users with ``rating_list.publish`` on the pool (clubs.permissions: its
federation's admins, site admins) see the form; the work is
ratings.services.publish_list's, which asks the same rule.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import permissions
from ratings import services
from ratings.forms import PublishForm
from ratings.views.public import pool_page


@require_POST
def publish(request: HttpRequest, slug: str, code: str) -> HttpResponse:
    """Publish the pool's list at the date given (ratings.services.publish_list)."""
    _link, pool = pool_page(request, slug, code)
    if pool is None:
        raise Http404(_("Nobody is rated in this discipline yet."))
    if not permissions.can(request.user, "rating_list.publish", pool):
        raise PermissionDenied(_("You may not publish this federation's rating lists."))
    back = redirect("ratings:pool", slug=slug, code=code)
    form = PublishForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(
                    request, _("The list was not published: %(error)s") % {"error": error}
                )
        return back
    date = form.cleaned_data["date"]
    try:
        published = services.publish_list(pool, date, by=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, _("The list was not published: %(error)s") % {"error": message})
        return back
    messages.success(
        request, _("The list at %(date)s is published.") % {"date": published.date.isoformat()}
    )
    return redirect("ratings:list", slug=slug, code=code, date=published.date)
