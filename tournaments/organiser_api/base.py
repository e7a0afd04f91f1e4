"""What every organiser view shares: the staff permission, the view of one event, the
answers' bodies and the reason an action asks for.
"""

from __future__ import annotations

from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from common.api import StaffModelPermissions
from common.fields import StrictCharField
from tournaments import selectors
from tournaments.api import EntrySerializer, EventOrganiser, EventSerializer, _event
from tournaments.models import Entry, Event


class StaffMay(permissions.BasePermission):
    """A staff user holding the permission the view names for the method
    (``staff_permissions = {"POST": "tournaments.change_event"}``); methods it does not name
    are left to the view's other permissions. Refused: 403 ``permission_denied``.

    Put it after ``IsAuthenticated`` so that an anonymous caller is told to sign in (401).
    """

    message = StaffModelPermissions.message

    def has_permission(self, request, view) -> bool:
        needed = getattr(view, "staff_permissions", {}).get(request.method)
        if needed is None:
            return request.method in permissions.SAFE_METHODS
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff and user.has_perm(needed))


class OrganiserView(APIView):
    """A staff action on one event (``pk``); drafts included, as staff see them. A write is
    for the event's organisers only (403 ``not_your_event``)."""

    permission_classes = [permissions.IsAuthenticated, StaffMay, EventOrganiser]
    staff_permissions: dict[str, str] = {"POST": "tournaments.change_event"}

    def event(self, pk: int) -> Event:
        return _event(self.request, pk)


def event_body(request: Request, event: Event) -> dict:
    event = selectors.event_list().get(pk=event.pk)
    return EventSerializer(event, context={"request": request}).data


def entries_body(entries) -> list[dict]:
    ids = [e.pk for e in entries]
    found = {e.pk: e for e in Entry.objects.select_related("player").filter(pk__in=ids)}
    return EntrySerializer([found[pk] for pk in ids], many=True).data


class ReasonSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=300)
