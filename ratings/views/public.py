"""Public rating pages: a pool's list (published or live), the archive of
published lists, one published list, their CSV/XLSX files, and a player's
rating history with its chart.

Anyone reads the pools of public federations (signed-in staff also those of
the federations they may see, clubs.permissions.visible_federations).  Each
page is a fixed number of queries whatever the number of rows.

A list's page shows ratings.queries.PAGE_SIZE rows (``?page=N``) or the players
a search finds (``?q=``), each with its rank in the whole list; the files hold
the whole list.  Its table is rendered once per version of the list
(base.httpcache.fragment, keyed by ratings.queries.list_version, the pool's
``names_version`` for the names and clubs it shows, and the day, which decides
the players' current clubs) and a reload whose ETag still holds is a 304.  An
anonymous visitor may be served a list's page kept whole (base.pagecache) until
the ratings services expire its pool (``"rating-pool"``) or clubs its
federation (``"federation"``).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from django.core.paginator import InvalidPage
from django.db.models import Q
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from base import httpcache, pagecache
from base.pagination import requested_page
from clubs import permissions
from clubs.models import FederationDiscipline, Player
from games import visibility
from ratings import charts, exports, queries, services
from ratings.forms import PublishForm
from ratings.models import RatingChange, RatingList, RatingPool
from ratings.templatetags.rating_pages import rating as format_rating
from ratings.templatetags.rating_pages import signed

SEARCH_MAX_LENGTH = 100

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


def _next_day_starts() -> float:
    """When the players' current clubs next change by the calendar alone (a membership
    starting or ended by date): the coming midnight, as ``time.time()`` counts.  The
    day is ``datetime.date.today()``'s, as in clubs' ``Membership.objects.current()``."""
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    return datetime.datetime.combine(tomorrow, datetime.time.min).timestamp()


def _kept_pool_page(
    request: HttpRequest, slug: str, code: str
) -> tuple[FederationDiscipline, RatingPool | None]:
    """``pool_page`` for a list's page, which anonymous visitors may be served kept
    whole (base.pagecache) while its pool and federation are not expired and the day
    has not changed.  Such a page must read what it shows after saying so: the rated
    discipline and its pool (the versions) are then read again (one query more, only
    when the page may be kept).  Before the first rating there is no pool to expire
    the page by, and it is not kept."""
    link, pool = pool_page(request, slug, code)
    if (
        pool is not None
        and pagecache.depends_on(request, "rating-pool", pool.pk, until=_next_day_starts())
        and pagecache.depends_on(request, "federation", link.federation_id)
    ):
        link, pool = pool_page(request, slug, code)
    return link, pool


def _base_context(link: FederationDiscipline, pool: RatingPool | None) -> dict[str, Any]:
    return {
        "link": link,
        "federation": link.federation,
        "discipline": link.discipline,
        "pool": pool,
        "glicko": queries.is_glicko(pool) if pool is not None else False,
    }


def _search(request: HttpRequest) -> tuple[str, tuple[str, ...]]:
    """``?q=``: the text as typed (shown back in the box) and its folded words."""
    text = " ".join(request.GET.get("q", "")[:SEARCH_MAX_LENGTH].split())
    return text, queries.search_words(text)


def _list_response(
    request: HttpRequest,
    context: dict[str, Any],
    key: tuple[Any, ...],
    read: Callable[[], queries.ListPage],
) -> HttpResponseBase:
    """The list page.  Its table (one page of the list with its page links, or the
    result of a search) is rendered once per ``key`` and served from the cache: the
    viewer's request does not change it (relative links, no form, no token).  A
    reload that still holds the page's ETag is a 304 and nothing is read or rendered."""

    def table() -> str:
        try:
            page = read()
        except InvalidPage:
            raise Http404(_("No such page.")) from None
        # The page links keep ?live=1 where the live list is not the default.
        live = context["mode"] == "live" and context["latest"] is not None
        table_context = {**context, "list_page": page, "live": live}
        html: str = render_to_string("ratings/_list_table.html", table_context)
        return html

    def build() -> HttpResponse:
        list_html = httpcache.fragment(key, table)
        return render(request, "ratings/pool.html", {**context, "list_html": list_html})

    link = context["link"]
    form = context["publish_form"]
    # Besides the table the page shows the names around it and the publish form.
    parts = (
        key,
        context["mode"],
        context["q"],
        link.federation.name,
        link.discipline.name,
        link.rating_system,
        str(form.initial["date"]) if form is not None else "",
    )
    return httpcache.etag_response(request, parts, build)


def pool_list(request: HttpRequest, slug: str, code: str) -> HttpResponseBase:
    """The pool's latest published list with players (never an empty one); the live
    ratings when asked (``?live=1``) or while no such list is published."""
    link, pool = _kept_pool_page(request, slug, code)
    context = _base_context(link, pool)
    number = requested_page(request)
    text, words = _search(request)
    if pool is None:
        context.update(mode="none", latest=None, can_publish=False, q=text)
        return render(request, "ratings/pool.html", context)
    latest = queries.latest_list(pool)
    mode = "published" if latest is not None and request.GET.get("live") != "1" else "live"
    can_publish = permissions.can(request.user, "rating_list.publish", pool)
    context.update(
        mode=mode,
        rating_list=latest if mode == "published" else None,
        latest=latest,
        can_publish=can_publish,
        publish_form=(
            PublishForm(initial={"date": services.default_list_date(pool)}) if can_publish else None
        ),
        q=text,
        searching=bool(words),
    )
    if mode == "published" and latest is not None:
        key = _published_key(pool, latest, context["glicko"], number, text)
        return _list_response(
            request, context, key, lambda: queries.list_page(latest, number, words)
        )
    key = _live_key(pool, latest, context["glicko"], number, text)
    return _list_response(
        request, context, key, lambda: queries.live_page(pool, latest, number, words)
    )


def _names_key(pool: RatingPool) -> tuple[int, str]:
    """What the names and clubs of a table depend on besides the list: the pool's
    names version (moved when a player or a club it shows is renamed or a player
    changes clubs, which moves no list version) and the day (a membership may start
    or end by date alone)."""
    return pool.names_version, datetime.date.today().isoformat()


def _published_key(
    pool: RatingPool, rating_list: RatingList, glicko: bool, number: int, search: str
) -> tuple[Any, ...]:
    """What a page of a published list shows: the list is frozen, its own version
    names its rows (the same table on the pool's page and on the list's own)."""
    version = queries.list_version(pool, rating_list)
    return ("rating-list", version, glicko, *_names_key(pool), number, search)


def _live_key(
    pool: RatingPool, latest: RatingList | None, glicko: bool, number: int, search: str
) -> tuple[Any, ...]:
    """What a page of the live list shows: it changes with every rated match (the
    pool's list version) and compares with the latest published list."""
    version = queries.list_version(pool)
    previous = latest.pk if latest is not None else None
    return ("rating-live", version, previous, glicko, *_names_key(pool), number, search)


def archive(request: HttpRequest, slug: str, code: str) -> HttpResponse:
    link, pool = pool_page(request, slug, code)
    context = _base_context(link, pool)
    context["lists"] = list(queries.published_lists(pool)) if pool is not None else []
    return render(request, "ratings/archive.html", context)


def _published(pool: RatingPool | None, date: datetime.date) -> tuple[RatingPool, RatingList]:
    if pool is None:
        raise Http404(_("No list was published at this date."))
    try:
        return pool, queries.published_list(pool, date)
    except RatingList.DoesNotExist:
        raise Http404(_("No list was published at this date.")) from None


def list_detail(
    request: HttpRequest, slug: str, code: str, date: datetime.date
) -> HttpResponseBase:
    """A published list, a page at a time, searchable like the pool's list."""
    link, found = _kept_pool_page(request, slug, code)
    pool, rating_list = _published(found, date)
    number = requested_page(request)
    text, words = _search(request)
    context = _base_context(link, pool)
    context.update(
        mode="archived",
        rating_list=rating_list,
        latest=None,
        can_publish=False,
        publish_form=None,
        q=text,
        searching=bool(words),
    )
    key = _published_key(pool, rating_list, context["glicko"], number, text)
    return _list_response(
        request, context, key, lambda: queries.list_page(rating_list, number, words)
    )


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
    link, found = pool_page(request, slug, code)
    pool, rating_list = _published(found, date)
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
