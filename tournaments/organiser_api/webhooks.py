"""An event's webhooks: registered and listed, their deliveries listed and sent again."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from common.api import refusal
from common.schema import error_codes
from tournaments import webhooks
from tournaments.api import EVENT_ORGANISER_CODES, ErrorSerializer
from tournaments.models import WEBHOOK_EVENTS, EventLog, Webhook, WebhookDelivery
from tournaments.organiser_api.base import OrganiserView


class WebhookSerializer(serializers.ModelSerializer):
    """A webhook; its signing secret only for those who may change webhooks (with it anyone
    forges deliveries the receiver trusts), as in the admin."""

    class Meta:
        model = Webhook
        fields = ["id", "event", "url", "events", "active", "secret", "created_at"]
        read_only_fields = ["id", "event", "secret", "created_at"]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        if request is None or not request.user.has_perm("tournaments.change_webhook"):
            data.pop("secret")
        return data


class WebhookCreateSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WEBHOOK_EVENTS), required=False, max_length=8
    )
    active = serializers.BooleanField(required=False)


class DeliverySerializer(serializers.ModelSerializer):
    response_excerpt = serializers.SerializerMethodField()

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "uuid",
            "event_type",
            "status",
            "attempts",
            "response_status",
            "response_excerpt",
            "error",
            "created_at",
            "last_attempt_at",
            "delivered_at",
        ]
        read_only_fields = fields

    def get_response_excerpt(self, delivery: WebhookDelivery) -> str:
        """The receiver's answer only as a short excerpt (it is whatever they sent)."""
        return webhooks.excerpt(delivery.response_body.encode())


class WebhooksView(OrganiserView):
    """The event's webhooks (GET); POST registers one. Its URL must be one the service may
    call (400 ``webhook_url_refused`` naming why); its secret is shown only to staff who may
    change webhooks."""

    staff_permissions = {"GET": "tournaments.view_webhook", "POST": "tournaments.add_webhook"}

    @extend_schema(responses={200: WebhookSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        hooks = self.event(pk).webhooks.order_by("pk")
        return Response(WebhookSerializer(hooks, many=True, context={"request": request}).data)

    @extend_schema(
        request=WebhookCreateSerializer, responses={201: WebhookSerializer, 400: ErrorSerializer}
    )
    @error_codes({"400": ["webhook_url_refused"]}, EVENT_ORGANISER_CODES)
    def post(self, request: Request, pk: int) -> Response:
        body = WebhookCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        hook = Webhook(event=event, **body.validated_data)
        try:
            hook.clean()  # the admin's check: no private, loopback or unresolvable address
        except DjangoValidationError as error:
            problem = error.error_dict["url"][0]
            return refusal(webhooks.UnsafeWebhookURL(problem.messages[0], code=problem.code))
        with transaction.atomic():
            hook.save()
            EventLog.objects.create(
                event=event, action="add_webhook", actor=request.user, detail={"webhook": hook.pk}
            )
        return Response(
            WebhookSerializer(hook, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class DeliveriesView(OrganiserView):
    """A webhook's deliveries, newest first: type, status, attempts, the receiver's answer."""

    staff_permissions = {"GET": "tournaments.view_webhookdelivery"}

    @extend_schema(responses={200: DeliverySerializer(many=True)})
    def get(self, request: Request, pk: int, webhook_id: int) -> Response:
        hook = get_object_or_404(Webhook, pk=webhook_id, event=self.event(pk))
        deliveries = hook.deliveries.order_by("-pk")[:200]
        return Response(DeliverySerializer(deliveries, many=True).data)


class ResendView(OrganiserView):
    """Send a delivery again, whatever became of it (the admin's "Deliver again")."""

    staff_permissions = {"POST": "tournaments.change_webhookdelivery"}

    @extend_schema(request=None, responses={202: DeliverySerializer})
    @error_codes(EVENT_ORGANISER_CODES)
    def post(self, request: Request, pk: int, webhook_id: int, delivery_id: int) -> Response:
        event = self.event(pk)
        delivery = get_object_or_404(
            WebhookDelivery, pk=delivery_id, webhook_id=webhook_id, webhook__event=event
        )
        with transaction.atomic():
            webhooks.redeliver(delivery)
            EventLog.objects.create(
                event=event,
                action="resend_delivery",
                actor=request.user,
                detail={"delivery": delivery.pk},
            )
        delivery.refresh_from_db()
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
