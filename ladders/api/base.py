"""What the ladders API's resources share: a ladder looked up or 404, a rating as shown
(rounded), the strict pagination, and a season as listed.

The bottom of :mod:`ladders.api`: every other module of the package imports this one, and it
imports none of them.
"""

from __future__ import annotations

from django.http import Http404
from django.utils import timezone
from rest_framework import serializers

from common.api import PageNumberPagination
from common.compiled import CompiledQuery
from ladders.models import Ladder, Season

#: The highest page number anyone may ask for: larger ones are refused before any query.
MAX_PAGE = 1_000_000


#: A ladder by id: the first read of most of this API's requests (compiled once).
_LADDER = CompiledQuery(lambda pk: Ladder.objects.filter(pk=pk).order_by(), -918_273_646)


def ladder_or_404(pk: int) -> Ladder:
    """The ladder (or rated pool) with this id, or a 404."""
    try:
        return _LADDER.get(pk)
    except Ladder.DoesNotExist:
        raise Http404 from None


def rating_rounded(value: float | None) -> float | None:
    """A rating or deviation as the API shows it: to one decimal."""
    return None if value is None else round(value, 1)


class StrictPagination(PageNumberPagination):
    """The house pagination, but a page that is not a positive integer is a 400 naming it."""

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if not raw:  # left out or empty (as a form sends it): the first page
            return 1
        field = serializers.IntegerField(min_value=1, max_value=MAX_PAGE)
        try:
            return field.run_validation(raw)
        except serializers.ValidationError as error:
            raise serializers.ValidationError({"page": error.detail}) from None


class SeasonSerializer(serializers.ModelSerializer):
    status = serializers.SerializerMethodField()

    class Meta:
        model = Season
        fields = ["number", "starts_at", "ends_at", "closed_at", "status"]
        read_only_fields = fields

    def get_status(self, season: Season) -> str:
        if season.closed_at is not None:
            return "closed"
        return "open" if season.starts_at <= timezone.now() else "scheduled"
