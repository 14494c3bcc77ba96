"""Public rating pages: a pool's list (published or live), the archive of
published lists, one published list, their CSV/XLSX files, and a player's
rating history with its chart.

Anyone reads the pools of public federations (signed-in staff also those of
the federations they may see, clubs.permissions.visible_federations).  Each
page is a fixed number of queries whatever the number of rows.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from clubs import permissions
from clubs.models import FederationDiscipline, Player
from games import visibility
from ratings import charts, exports, queries, services
from ratings.forms import PublishForm
from ratings.models import RatingChange, RatingList, RatingPool
from ratings.templatetags.rating_pages import rating as format_rating
from ratings.templatetags.rating_pages import signed

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def pool_page(
    request: HttpRequest, slug: str, code: str
) -> tuple[FederationDiscipline, RatingPool | None]:
    """The rated discipline of a visible federation and its pool (None before the
    first rating): one query; 404 for an unknown or hidden one."""
    try:
        link = queries.rated_discipline(request.user, slug, code)
    except FederationDiscipline.DoesNotExist:
        raise Http404(_("No such rating list.")) from None
    return link, queries.pool_of(link)


def _base_context(link: FederationDiscipline, pool: RatingPool | None) -> dict[str, Any]:
    return {
        "link": link,
        "federation": link.federation,
        "discipline": link.discipline,
        "pool": pool,
        "glicko": queries.is_glicko(pool) if pool is not None else False,
    }


def pool_list(request: HttpRequest, slug: str, code: str) -> HttpResponse:
    """The pool's latest published list with players (never an empty one); the live
    ratings when asked (``?live=1``) or while no such list is published."""
    link, pool = pool_page(request, slug, code)
    context = _base_context(link, pool)
    latest = queries.latest_list(pool) if pool is not None else None
    if pool is None:
        mode, rows = "none", []
    elif latest is not None and request.GET.get("live") != "1":
        mode, rows = "published", queries.list_rows(latest)
    else:
        mode, rows = "live", queries.live_rows(pool, latest)
    can_publish = pool is not None and permissions.can(request.user, "rating_list.publish", pool)
    context.update(
        mode=mode,
        rows=rows,
        rating_list=latest if mode == "published" else None,
        latest=latest,
        can_publish=can_publish,
        publish_form=(
            PublishForm(initial={"date": services.default_list_date(pool)})
            if can_publish and pool is not None
            else None
        ),
    )
    return render(request, "ratings/pool.html", context)


def archive(request: HttpRequest, slug: str, code: str) -> HttpResponse:
    link, pool = pool_page(request, slug, code)
    context = _base_context(link, pool)
    context["lists"] = list(queries.published_lists(pool)) if pool is not None else []
    return render(request, "ratings/archive.html", context)


def _published(pool: RatingPool | None, date: datetime.date) -> RatingList:
    if pool is None:
        raise Http404(_("No list was published at this date."))
    try:
        return queries.published_list(pool, date)
    except RatingList.DoesNotExist:
        raise Http404(_("No list was published at this date.")) from None


def list_detail(request: HttpRequest, slug: str, code: str, date: datetime.date) -> HttpResponse:
    link, pool = pool_page(request, slug, code)
    rating_list = _published(pool, date)
    context = _base_context(link, pool)
    context.update(
        mode="archived",
        rows=queries.list_rows(rating_list),
        rating_list=rating_list,
        latest=None,
        can_publish=False,
        publish_form=None,
    )
    return render(request, "ratings/pool.html", context)


def _file(
    link: FederationDiscipline, pool: RatingPool, rows: list[queries.Row], label: str, fmt: str
) -> HttpResponse:
    glicko = queries.is_glicko(pool)
    if fmt == "xlsx":
        title = f"{link.discipline.name} {label}"
        content = exports.xlsx_bytes(rows, glicko=glicko, title=title)
    else:
        content = exports.csv_bytes(rows, glicko=glicko)
    response = HttpResponse(content, content_type=CONTENT_TYPES[fmt])
    stem = exports.file_stem(link.federation.slug, link.discipline.code, label)
    response["Content-Disposition"] = f'attachment; filename="{stem}.{fmt}"'
    return response


def list_export(
    request: HttpRequest, slug: str, code: str, date: datetime.date, fmt: str
) -> HttpResponse:
    """A published list as a CSV or XLSX file."""
    link, pool = pool_page(request, slug, code)
    rating_list = _published(pool, date)
    return _file(link, pool, queries.list_rows(rating_list), date.isoformat(), fmt)


def live_export(request: HttpRequest, slug: str, code: str, fmt: str) -> HttpResponse:
    """The live ratings as a CSV or XLSX file."""
    link, pool = pool_page(request, slug, code)
    if pool is None:
        raise Http404(_("Nobody is rated in this discipline yet."))
    rows = queries.live_rows(pool, queries.latest_list(pool))
    return _file(link, pool, rows, "live", fmt)


# --- A player's history


def _history_rows(changes: list[RatingChange]) -> list[dict[str, Any]]:
    # A rated result the viewer may not see (a tournament that does not publish its
    # results; games.visibility, annotated by ``history``) shows the rating change,
    # not the outcome or score.
    return [
        {
            "change": change,
            "opponent": queries.opponent(change),
            "outcome": None if getattr(change, "result_hidden", False) else queries.outcome(change),
            "score": None if getattr(change, "result_hidden", False) else queries.score(change),
            "delta": change.rating_after - change.rating_before,
        }
        for change in changes
    ]


def _point_label(row: dict[str, Any], when: datetime.datetime) -> str:
    """The tooltip of a point: date, rating after (change), and what was played."""
    change = row["change"]
    day = formats.date_format(when, "SHORT_DATE_FORMAT")
    text = f"{day}: {format_rating(change.rating_after)} ({signed(row['delta'])})"
    if change.matches > 1:
        played = _("Matches in the rating period: %(count)d") % {"count": change.matches}
        return f"{text} · {played}"
    if row["opponent"] is not None:
        return f"{text} · " + _("against %(opponent)s") % {"opponent": row["opponent"]}
    return text


def _chart(player: Player, pool: RatingPool, rows: list[dict[str, Any]]) -> str:
    points = []
    for row in rows:
        change = row["change"]
        when = timezone.localtime(change.played_at)
        points.append(
            charts.ChartPoint(
                when=when,
                rating=change.rating_after,
                match_id=change.match_id,
                label=_point_label(row, when),
            )
        )
    summary = queries.summary([row["change"] for row in rows]) or {}
    first = timezone.localtime(rows[0]["change"].played_at)
    last = timezone.localtime(rows[-1]["change"].played_at)
    title = _("Rating history of %(player)s: %(pool)s") % {"player": player, "pool": pool}
    description = _(
        "Rating changes: %(count)d, from %(first)s to %(last)s. The rating went from "
        "%(start)s to %(current)s; highest %(highest)s, lowest %(lowest)s."
    ) % {
        "count": len(rows),
        "first": formats.date_format(first, "SHORT_DATE_FORMAT"),
        "last": formats.date_format(last, "SHORT_DATE_FORMAT"),
        "start": format_rating(summary["start"]),
        "current": format_rating(summary["current"]),
        "highest": format_rating(summary["highest"]),
        "lowest": format_rating(summary["lowest"]),
    }
    return charts.rating_chart(
        points,
        title=title,
        description=description,
        link=lambda match_id: reverse("games:match", args=[match_id]),
    )


def history(request: HttpRequest, pk: int, pool_id: int) -> HttpResponse:
    """A player's rating history in one pool: the chart and the matches behind it."""
    visible = permissions.visible_federations(request.user)
    try:
        player = Player.objects.select_related("federation").get(
            Q(federation__isnull=True) | Q(federation__in=visible), pk=pk
        )
    except Player.DoesNotExist:
        raise Http404(_("No such player.")) from None
    if player.merged_into_id is not None:
        return HttpResponsePermanentRedirect(
            reverse("ratings:history", args=[player.merged_into_id, pool_id])
        )
    try:
        pool = queries.visible_pools(request.user).get(pk=pool_id)
    except RatingPool.DoesNotExist:
        raise Http404(_("No such rating list.")) from None
    changes = list(
        queries.player_history(pool, player.pk).annotate(
            result_hidden=visibility.hidden_flag(request.user, "match_id")
        )
    )
    rows = _history_rows(changes)
    link = pool.rated_discipline
    context = {
        "player": player,
        "pool": pool,
        "link": link,
        "federation": link.federation,
        "discipline": link.discipline,
        "glicko": queries.is_glicko(pool),
        "current": queries.player_rating(player.pk, pool),
        "rows": rows,
        "summary": queries.summary(changes),
        "chart": mark_safe(_chart(player, pool, rows)) if rows else "",  # escaped by charts.render
    }
    return render(request, "ratings/history.html", context)
