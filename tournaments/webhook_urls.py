"""Where a webhook may point: a URL's host resolved and every address it names checked.

A webhook is a request the service makes on an organiser's behalf, so it must not reach what
only the service can reach (see :mod:`tournaments.webhooks`). Plain code over the settings and
the resolver: the models check a webhook's URL with it when one is saved, the deliveries at
every attempt. :mod:`tournaments.webhooks` offers the same names.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from common.errors import ServiceError


class UnsafeWebhookURL(ServiceError):
    """A webhook URL the service refuses to call; the message says why."""

    status = 400
    code = "webhook_url_refused"


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: where to connect (``address``) and what to ask for."""

    scheme: str
    host: str
    port: int
    address: str
    path: str


_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address_refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why the service must not connect to ``address`` (_("a loopback address"), ...), or None.

    An IPv4 address written as IPv6 (``::ffff:127.0.0.1``, 6to4, NAT64) is judged as the IPv4
    address it stands for. With ``WEBHOOK_ALLOW_PRIVATE`` loopback and private addresses pass;
    unspecified, link-local (cloud metadata), IPv6 site-local (``fec0::/10``, deprecated but
    still routed inside some networks, and counted as global by :mod:`ipaddress`), multicast
    and reserved addresses never do.
    """
    if isinstance(address, ipaddress.IPv6Address):
        if address in _NAT64:
            return address_refusal(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return address_refusal(mapped)
    allow_private = settings.WEBHOOK_ALLOW_PRIVATE
    if address.is_unspecified:
        return _("an unspecified address")
    if address.is_loopback:  # before "reserved": ::1 is both
        return None if allow_private else _("a loopback address")
    if address.is_link_local:
        return _("a link-local address")
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return _("a site-local address")
    if address.is_multicast:
        return _("a multicast address")
    if address.is_reserved:
        return _("a reserved address")
    if address.is_private:
        return None if allow_private else _("a private address")
    if not address.is_global:
        return None if allow_private else _("not a public address")
    return None


def url_check(url: str) -> Target:
    """Check that ``url`` may receive webhooks, resolving its host; where to connect.

    Raises :class:`UnsafeWebhookURL` naming why when the scheme is not allowed, the host does
    not resolve, or any address it resolves to is refused (:func:`address_refusal`). The
    returned :class:`Target` carries the checked address: connect to it, not to the name.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeWebhookURL(_("Not a valid URL: %(error)s.") % {"error": exc}) from None
    scheme = parts.scheme.lower()
    if scheme == "http" and not settings.WEBHOOK_ALLOW_HTTP:
        raise UnsafeWebhookURL(_("Webhook URLs must use https (plain http is not allowed here)."))
    if scheme not in ("http", "https"):
        raise UnsafeWebhookURL(_("Webhook URLs must use https."))
    host = parts.hostname
    if not host:
        raise UnsafeWebhookURL(_("The URL names no host."))
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise UnsafeWebhookURL(_("%(host)s is not a valid host name.") % {"host": host}) from None
    if parts.username is not None or parts.password is not None:
        raise UnsafeWebhookURL(_("The URL must not carry a user name or password."))
    port = port or (443 if scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise UnsafeWebhookURL(_("The host %(host)s does not resolve.") % {"host": host}) from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    if not addresses:
        raise UnsafeWebhookURL(_("The host %(host)s does not resolve.") % {"host": host})
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone
        reason = address_refusal(address)
        if reason is not None:
            raise UnsafeWebhookURL(
                _(
                    "The host %(host)s resolves to %(address)s, %(reason)s: webhooks go only to "
                    "public addresses."
                )
                % {"host": host, "address": address, "reason": reason}
            )
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(scheme=scheme, host=host, port=port, address=addresses[0], path=path)
