"""The API's one pagination: numbered pages of at most MAX_PAGE_SIZE rows.

Numbered pages (``?page=3&page_size=200``), not limit/offset: the public pages
page the same way (``?page=N``), a numbered page is a stable address that a
cache and an ETag can key on, and the answer says how many rows there are in
all (``count``) with the links to the pages either side::

    {"count": 1000, "next": ".../?page=4", "previous": ".../?page=2", "results": [...]}

A page number or size that is no whole number in its documented range is a
400 naming the parameter; a page past the last is a 404 saying which pages
exist.  The same rules page the rows a document carries (a rating list's
entries, a standings table's rows) through ``page_of``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from base.fields import BIG

PAGE_SIZE = 100
MAX_PAGE_SIZE = 500
# Beyond what any table holds; the bound keeps a number out of the database's reach.
LAST_PAGE_NUMBER = BIG[1]

PAGE_SCHEMA = {"type": "integer", "minimum": 1, "maximum": LAST_PAGE_NUMBER, "default": 1}
PAGE_SIZE_SCHEMA = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": PAGE_SIZE}
PAGE_HELP = gettext_lazy("A page number, from 1.")

# The page of an HTML list a visitor asks for: a whole number from 1, nine digits at most.
PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,8}")


def requested_page(request: HttpRequest, name: str = "page") -> int:
    """The page of an HTML list ``?page=`` (or ``name``) asks for, 1 when absent.

    Anything else is a 404, as a page past the last is: every page has one address,
    so made-up ones fill no cache (the API refuses them the same way)."""
    value = request.GET.get(name)
    if value is None:
        return 1
    if not PAGE_NUMBER.fullmatch(value):
        raise Http404(gettext("No such page."))
    return int(value)


def page_size_help() -> str:
    return str(gettext("Rows per page, from 1 to %(max)d; %(default)d when not given.")) % {
        "max": MAX_PAGE_SIZE,
        "default": PAGE_SIZE,
    }


PAGE_SIZE_HELP = lazy(page_size_help, str)()


class PageQuery(serializers.Serializer):
    """The query parameters of a page, checked before any row is read."""

    page = serializers.IntegerField(min_value=1, max_value=LAST_PAGE_NUMBER, required=False)
    page_size = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE, required=False)


def page_parameters() -> list[OpenApiParameter]:
    """The two parameters, for the schema of an endpoint that pages rows inside a document."""
    return [
        OpenApiParameter("page", PAGE_SCHEMA, OpenApiParameter.QUERY, description=PAGE_HELP),
        OpenApiParameter(
            "page_size", PAGE_SIZE_SCHEMA, OpenApiParameter.QUERY, description=PAGE_SIZE_HELP
        ),
    ]


class ApiPagination(PageNumberPagination):
    """Every list of the API (REST_FRAMEWORK's DEFAULT_PAGINATION_CLASS)."""

    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    last_page_strings = ()  # a page is a number, as the schema says
    template = None  # the browsable API is not served: no page links to render

    def paginate_queryset(
        self, queryset: Any, request: Request, view: Any = None
    ) -> list[Any] | None:
        self.request = request
        query = PageQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        size = query.validated_data.get("page_size", self.page_size)
        number = query.validated_data.get("page", 1)
        paginator = Paginator(queryset, size)
        if number > paginator.num_pages:
            raise NotFound(
                gettext("There is no page %(page)d: the pages are 1 to %(last)d.")
                % {"page": number, "last": paginator.num_pages}
            )
        self.page = paginator.page(number)
        return list(self.page)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        documented: dict[str, Any] = super().get_paginated_response_schema(schema)
        # The four keys are in every answer; next and previous are null at the ends.
        documented["required"] = ["count", "next", "previous", "results"]
        documented["properties"]["count"]["minimum"] = 0
        return documented

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": "page",
                "required": False,
                "in": "query",
                "description": str(PAGE_HELP),
                "schema": PAGE_SCHEMA,
            },
            {
                "name": "page_size",
                "required": False,
                "in": "query",
                "description": str(PAGE_SIZE_HELP),
                "schema": PAGE_SIZE_SCHEMA,
            },
        ]


def page_of(rows: Sequence[Any] | Any, request: Request, serialize: Any) -> dict[str, Any]:
    """One page of ``rows`` (a queryset or a list) as ``{count, next, previous, results}``,
    each row of the page through ``serialize(page_rows)``: the rows a document carries."""
    pagination = ApiPagination()
    page = pagination.paginate_queryset(rows, request)
    response: Response = pagination.get_paginated_response(serialize(page))
    return dict(response.data)
