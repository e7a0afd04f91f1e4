"""Template filters for cards and matches: ``{{ "7H"|card }}`` renders ``7♥`` with its name."""

from django import template
from django.utils.html import format_html, format_html_join

from games.sheets import time_control_line

register = template.Library()

SUITS = {"C": ("♣", "clubs"), "D": ("♦", "diamonds"), "H": ("♥", "hearts"), "S": ("♠", "spades")}
RANKS = {"A": ("A", "ace"), "T": ("10", "ten"), "J": ("J", "jack"), "Q": ("Q", "queen")}
RANKS["K"] = ("K", "king")


def card_text(code: str) -> str:
    """``7H`` -> ``7♥``, ``TS`` -> ``10♠``."""
    rank, suit = code[0], code[1]
    return RANKS.get(rank, (rank, rank))[0] + SUITS[suit][0]


def card_label(code: str) -> str:
    """``7H`` -> ``7 of hearts``, ``QS`` -> ``queen of spades``."""
    rank, suit = code[0], code[1]
    return f"{RANKS.get(rank, (rank, rank))[1]} of {SUITS[suit][1]}"


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
    verb = "Won" if match.winner_id == player.pk else "Lost"
    return f"{verb} {games_score(match, player)}"


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
            how = f" ({detail})"
        else:
            how = f" ({reason}: {detail})" if detail else f" ({reason})"
    viewer_pk = getattr(viewer, "pk", None)
    if viewer_pk in (match.player_a_id, match.player_b_id):
        verb = "won" if match.winner_id == viewer_pk else "lost"
        return f"You {verb} {games_score(match, viewer)}{how}"
    a, b = match.games_won_a, match.games_won_b
    return f"{match.player_a} {a}\u2013{b} {match.player_b}: {match.winner} won{how}"


#: The tag shown beside a player's name, by kind (people with an account have none).
KIND_TAGS = {
    "bot": ("bot", ""),
    "guest": ("guest", "entered by an organiser, without an account"),
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
