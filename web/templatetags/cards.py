"""Template filters for cards and matches: ``{{ "7H"|card }}`` renders ``7♥`` with its name."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.sheets import time_control_line

register = template.Library()

SUITS = {
    "C": ("♣", pgettext_lazy("card suit", "clubs")),
    "D": ("♦", pgettext_lazy("card suit", "diamonds")),
    "H": ("♥", pgettext_lazy("card suit", "hearts")),
    "S": ("♠", pgettext_lazy("card suit", "spades")),
}
RANKS = {
    "A": ("A", pgettext_lazy("card rank", "ace")),
    "T": ("10", pgettext_lazy("card rank", "ten")),
    "J": ("J", pgettext_lazy("card rank", "jack")),
    "Q": ("Q", pgettext_lazy("card rank", "queen")),
    "K": ("K", pgettext_lazy("card rank", "king")),
}


def card_text(code: str) -> str:
    """``7H`` -> ``7♥``, ``TS`` -> ``10♠``."""
    rank, suit = code[0], code[1]
    return RANKS.get(rank, (rank, rank))[0] + SUITS[suit][0]


def card_label(code: str) -> str:
    """``7H`` -> ``7 of hearts``, ``QS`` -> ``queen of spades``."""
    rank, suit = code[0], code[1]
    return _("%(rank)s of %(suit)s") % {
        "rank": RANKS.get(rank, (rank, rank))[1],
        "suit": SUITS[suit][1],
    }


@register.filter
def card(code: str):
    """One card as text and symbol, its colour a second cue only."""
    return format_html(
        '<span class="card suit-{}" title="{}"><span aria-hidden="true">{}</span>'
        '<span class="sr-only">{}</span></span>',
        code[1].lower(),
        card_label(code),
        card_text(code),
        card_label(code),
    )


@register.filter
def cards(codes):
    return format_html_join(" ", "{}", ((card(c),) for c in codes or ()))


@register.filter
def time_control(match) -> str:
    """``5 min + 5 s``, or ``untimed``."""
    return time_control_line(match)


@register.filter
def opponent_of(match, player):
    """The other player of a match."""
    return match.player_b if match.player_a_id == player.pk else match.player_a


@register.filter
def result_for(match, player) -> str:
    """``won``, ``lost`` or the match status, from the player's side."""
    if match.winner_id is None:
        return match.get_status_display().lower()
    return "won" if match.winner_id == player.pk else "lost"


@register.filter
def games_score(match, player) -> str:
    """Games won, the player's first: ``2-1`` (with an en dash)."""
    a, b = match.games_won_a, match.games_won_b
    mine, theirs = (a, b) if match.player_a_id == player.pk else (b, a)
    return f"{mine}\u2013{theirs}"


@register.filter
def result_line(match, player) -> str:
    """The match from the player's side: ``Won 3-1``, ``Lost 1-3`` (their games first)."""
    if match.winner_id is None:
        return match.get_status_display()
    score = games_score(match, player)
    if match.winner_id == player.pk:
        return _("Won %(score)s") % {"score": score}
    return _("Lost %(score)s") % {"score": score}


@register.filter
def winner_score(match) -> str:
    """Games won, the winner's first: ``3-1`` whichever seat won (with an en dash)."""
    a, b = match.games_won_a, match.games_won_b
    b_won = match.winner_id is not None and match.winner_id == match.player_b_id
    high, low = (b, a) if b_won else (a, b)
    return f"{high}\u2013{low}"


@register.filter
def match_result(match, viewer=None) -> str:
    """A finished match's result in the one order every page uses: the viewer's side first
    for a player ("You won 3-1", "You lost 1-3"), the seats in order for anyone else ("Ada
    1-3 Bob: Bob won"), with how it ended when not by games ("(no show)"), an end detail
    that repeats the reason said once (en dashes)."""
    if match.winner_id is None:
        return match.get_status_display()
    how = ""
    if match.end_reason and match.end_reason != "games":
        reason = match.get_end_reason_display().lower()
        detail = (match.end_detail or "").strip()
        if detail.lower().startswith(reason):
            how = detail
        elif detail:
            how = _("%(reason)s: %(detail)s") % {"reason": reason, "detail": detail}
        else:
            how = reason
    viewer_pk = getattr(viewer, "pk", None)
    if viewer_pk in (match.player_a_id, match.player_b_id):
        score = games_score(match, viewer)
        if match.winner_id == viewer_pk:
            result = _("You won %(score)s") % {"score": score}
        else:
            result = _("You lost %(score)s") % {"score": score}
    else:
        a, b = match.games_won_a, match.games_won_b
        result = _("%(player_a)s %(score)s %(player_b)s: %(winner)s won") % {
            "player_a": match.player_a,
            "score": f"{a}\u2013{b}",
            "player_b": match.player_b,
            "winner": match.winner,
        }
    if how:
        # The way the match ended, after its result: "You won 3-1 (no show)".
        return _("%(result)s (%(how)s)") % {"result": result, "how": how}
    return result


#: The tag shown beside a player's name, by kind (people with an account have none).
KIND_TAGS = {
    "bot": (pgettext_lazy("player tag", "bot"), ""),
    "guest": (
        pgettext_lazy("player tag", "guest"),
        gettext_lazy("entered by an organiser, without an account"),
    ),
}


@register.filter
def kind_tag(player):
    """The "bot" or "guest" tag beside a player's name (a Player, or a payload's dict)."""
    kind = player.get("kind") if isinstance(player, dict) else getattr(player, "kind", None)
    if kind not in KIND_TAGS:
        return ""
    text, title = KIND_TAGS[kind]
    if title:
        return format_html(' <span class="tag" title="{}">{}</span>', title, text)
    return format_html(' <span class="tag">{}</span>', text)
