"""Filter backends of the API (REST_FRAMEWORK's DEFAULT_FILTER_BACKENDS)."""

from __future__ import annotations

from typing import Any

from rest_framework import filters


class SearchFilter(filters.SearchFilter):
    """DRF's ``?search=``, documented only where it searches: a view without
    ``search_fields`` ignores the parameter, so its schema does not offer it."""

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        if not getattr(view, "search_fields", None):
            return []
        return super().get_schema_operation_parameters(view)  # type: ignore[no-any-return]
