"""An event on paper and on a projector, without a browser: the round's pairings by table,
one score sheet per table match, the standings, the bracket and the screen view. Each page is
public (as the event page is), has no site navigation, and shows nothing hidden."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from games.models import Match
from tests.factories import PlayerFactory
from tests.tournaments import decide
from tournaments import services
from tournaments.models import Event, Pairing

pytestmark = pytest.mark.django_db

PAGES = ["print/pairings", "print/sheets", "print/standings", "print/bracket", "screen"]
#: Long names, as people have them: printed whole.
NAMES = [
    "Ada Lovelace",
    "Bea Undercut-Specialist",
    "Cy",
    "Dora Deadwood",
    "Eli",
    "Fay Gin-Collector",
    "Gus",
    "Hal Knock-at-Ten",
]


@pytest.fixture
def web() -> Client:
    return Client()


def people(count: int = 8, prefix: str = "") -> list:
    """People named from NAMES (with ``prefix``: another cast for a second event)."""
    return [
        PlayerFactory(user__username=f"{prefix}p{n}", name=f"{prefix}{NAMES[n]}")
        for n in range(count)
    ]


def club_event(format: str = "swiss", players=None, **options) -> Event:
    """An event of people at tables, started: its first round paired."""
    event = services.event_create(
        name="Thursday club night",
        format=format,
        best_of=options.pop("best_of", 3),
        target=options.pop("target", 100),
        base_seconds=None,
        seeding="random",
        seeding_seed=11,
        venue="tables",
        **options,
    )
    services.event_open_registration(event=event)
    for player in players or people():
        services.entry_add(event=event, player=player)
    services.event_start(event=event)
    seat(event)
    event.refresh_from_db()
    return event


def seat(event: Event, online: set[str] = frozenset()) -> None:
    """Each match of a person at its board, numbered in pairing order per round (as pairing a
    tables event does); the pairings named in ``online`` are played online instead."""
    boards: dict[int, int] = {}
    pairings = Pairing.objects.filter(event=event, match__isnull=False).order_by(
        "round__number", "table"
    )
    for p in pairings:
        if p.key in online:
            Match.objects.filter(pk=p.match_id).update(venue="online", table=None)
            continue
        boards[p.round_id] = boards.get(p.round_id, 0) + 1
        Match.objects.filter(pk=p.match_id).update(venue="table", table=boards[p.round_id])


def rows(html: str, table_class: str = "pairings-by-table") -> list[tuple[str, str, str]]:
    """(board, player A, player B) of each row of the page's pairings tables, as read."""
    found = []
    for table in re.findall(rf'<table class="{table_class}".*?</table>', html, re.S):
        for row in re.findall(r"<tr data-key.*?</tr>", table, re.S):
            cells = [
                " ".join(unescape(re.sub(r"<[^>]+>", "", cell)).split())
                for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            ]
            found.append((cells[0], cells[1].removeprefix("✔ "), cells[3].removeprefix("✔ ")))
    return found


def text(response) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def pairs_of(event: Event, number: int = 1) -> list[tuple[str, str, str]]:
    """(board, A, B) of the round's pairings of two players, as the database has them."""
    out = []
    pairings = Pairing.objects.filter(
        event=event, round__number=number, entry_a__isnull=False, entry_b__isnull=False
    ).select_related("match", "entry_a__player", "entry_b__player")
    for p in pairings:
        board = str(p.match.table) if p.match.table else "online"
        out.append((board, p.entry_a.player.name, p.entry_b.player.name))
    return sorted(out, key=lambda r: (r[0] == "online", int(r[0]) if r[0].isdigit() else 0))


# --- pairings by table -----------------------------------------------------------------------


def test_the_pairings_list_every_table_with_its_two_players_and_the_round(web):
    event = club_event()

    response = web.get(f"/events/{event.pk}/print/pairings")

    assert response.status_code == 200
    assert rows(response.content.decode()) == pairs_of(event)
    assert [board for board, *_ in rows(response.content.decode())] == ["1", "2", "3", "4"]
    page = text(response)
    assert "Thursday club night" in page and "Pairings by table · Round 1" in page


def test_the_board_is_the_one_the_match_is_played_at(web):
    event = club_event()
    pairings = list(Pairing.objects.filter(event=event, round__number=1).order_by("table"))
    for board, p in enumerate(reversed(pairings), start=1):  # numbered the other way round
        Match.objects.filter(pk=p.match_id).update(table=board)

    listed = rows(web.get(f"/events/{event.pk}/print/pairings").content.decode())

    assert listed == pairs_of(event)
    assert [board for board, *_ in listed] == ["1", "2", "3", "4"]
    assert listed[0][1] == pairings[-1].entry_a.player.name


def test_a_match_played_online_is_listed_after_the_tables_as_online(web):
    event = club_event()
    seat(event, online={"S1.2"})

    listed = rows(web.get(f"/events/{event.pk}/print/pairings").content.decode())

    assert [board for board, *_ in listed] == ["1", "2", "3", "online"]
    online = Pairing.objects.select_related("entry_a__player").get(event=event, key="S1.2")
    assert listed[-1][1] == online.entry_a.player.name


def test_a_bye_is_printed_apart_without_a_table(web):
    event = club_event(players=people(5))

    response = web.get(f"/events/{event.pk}/print/pairings")

    bye = Pairing.objects.select_related("entry_a__player").get(event=event, result="bye")
    assert len(rows(response.content.decode())) == 2
    assert f"Bye: {bye.entry_a.player.name}" in text(response)


def test_the_pairings_follow_the_rounds_and_any_round_can_be_asked_for(web):
    event = club_event()
    for p in Pairing.objects.filter(event=event, round__number=1).select_related("entry_a"):
        decide(event, p.key, p.entry_a.player)
    seat(event)
    assert event.rounds.get(number=2).status == "running"

    current = web.get(f"/events/{event.pk}/print/pairings")
    first = web.get(f"/events/{event.pk}/print/pairings?round=1")

    assert "Pairings by table · Round 2" in text(current)
    assert rows(current.content.decode()) == pairs_of(event, 2)
    assert "Pairings by table · Round 1" in text(first)
    assert rows(first.content.decode()) == pairs_of(event, 1)
    for bad in ("9", "0", "two", "-1", "1" * 30):
        assert web.get(f"/events/{event.pk}/print/pairings?round={bad}").status_code == 404, bad
        assert web.get(f"/events/{event.pk}/print/sheets?round={bad}").status_code == 404, bad


# --- score sheets ----------------------------------------------------------------------------


def sheets(response) -> list[str]:
    return re.findall(r'<article class="sheet.*?</article>', response.content.decode(), re.S)


def test_one_score_sheet_per_table_with_names_table_round_event_and_rules(web):
    event = club_event(rules={"preset": "standard"})
    seat(event, online={"S1.4"})

    response = web.get(f"/events/{event.pk}/print/sheets")

    assert response.status_code == 200
    printed = sheets(response)
    assert len(printed) == 3  # the match played online has no sheet
    for sheet, (board, a, b) in zip(printed, pairs_of(event)[:3], strict=True):
        words = " ".join(unescape(re.sub(r"<[^>]+>", " ", sheet)).split())
        assert f"Table {board}" in words
        assert a in words and b in words
        assert "Thursday club night · Round 1" in words
        assert "Standard · knock at 10 or less · gin 25, big gin 31, undercut 25" in words
        assert "game 100, box 25, a shutout doubles the hand points · best of 3 to 100" in words
        assert "Deadwood Points Total" in words
        assert "Upcard" not in words and "Game 3" not in words
        assert len(re.findall(r"<tr><td class=\"n\">", sheet)) == 20 + 3  # hands, then games


def test_a_hollywood_sheet_has_its_three_columns_and_oklahoma_its_upcard(web):
    hollywood = club_event("round_robin", people(4), rules={"preset": "hollywood"})
    oklahoma = club_event(
        "single_elim", people(4, "Okie "), rules={"preset": "oklahoma"}, best_of=5
    )

    sheet = sheets(web.get(f"/events/{hollywood.pk}/print/sheets"))[0]
    words = " ".join(unescape(re.sub(r"<[^>]+>", " ", sheet)).split())
    assert "Hollywood (three games scored at once)" in words
    assert "Game 1 Game 2 Game 3" in words
    okie = sheets(web.get(f"/events/{oklahoma.pk}/print/sheets"))[0]
    words = " ".join(unescape(re.sub(r"<[^>]+>", " ", okie)).split())
    assert "Oklahoma · the first upcard sets the knock limit (an ace: gin only)" in words
    assert "a spade upcard scores \u00d72" in words and "best of 5 to 100" in words
    assert "Upcard" in words
    # A best of five keeps the sheet on one page: fewer lines of hands, five of games.
    assert len(re.findall(r"<tr><td class=\"n\">", okie)) == 18 + 5


def test_each_sheet_ends_its_printed_page(web):
    css = b"".join(web.get("/static/web/css/paper.css").streaming_content).decode()

    assert re.search(r"@media print \{.*\.sheet \{ break-after: page; \}", css, re.S)
    assert "@page { size: auto; margin: 12mm; }" in css
    assert re.search(r"@media print \{.*\.paper-tools \{ display: none; \}", css, re.S)


def test_an_online_event_has_no_score_sheets_to_print(web):
    event = club_event()
    Match.objects.filter(pk__in=Pairing.objects.filter(event=event).values("match")).update(
        venue="online", table=None
    )

    response = web.get(f"/events/{event.pk}/print/sheets")

    assert response.status_code == 200 and sheets(response) == []
    assert "No table to score in this round" in text(response)
    assert [
        board for board, *_ in rows(web.get(f"/events/{event.pk}/print/pairings").content.decode())
    ] == ["online"] * 4


# --- standings and the bracket ----------------------------------------------------------------


def test_the_standings_print_every_player_with_the_format_columns(web):
    event = club_event()
    first = Pairing.objects.select_related("entry_a__player").get(event=event, key="S1.1")
    decide(event, "S1.1", first.entry_a.player)

    response = web.get(f"/events/{event.pk}/print/standings")

    assert response.status_code == 200
    page = text(response)
    assert "Rank Player Points Buchholz" in page
    for name in NAMES:
        assert name in page
    assert re.search(rf"1 {re.escape(first.entry_a.player.name)} 1 ", page)


def test_an_elimination_bracket_prints_its_rounds_and_other_formats_say_they_have_none(web):
    knockout = club_event("single_elim")
    swiss = club_event("swiss", people(4, "Swiss "))

    bracket = web.get(f"/events/{knockout.pk}/print/bracket")
    none = web.get(f"/events/{swiss.pk}/print/bracket")

    assert bracket.status_code == 200
    page = text(bracket)
    assert "Quarterfinals" in page and "Semifinals" in page and "Final" in page
    assert "winner of R1.1" in page
    for name in NAMES:
        assert name in page
    assert none.status_code == 200
    assert "Swiss has no bracket" in text(none)
    assert 'class="bracket-print"' not in none.content.decode()


def test_a_bracket_with_a_third_place_match_is_headed_bracket_once(web):
    event = club_event("single_elim", third_place=True)

    printed = web.get(f"/events/{event.pk}/print/bracket").content.decode()
    screen = web.get(f"/events/{event.pk}/screen/panels").content.decode()

    for html in (printed, screen):
        headings = re.findall(r"<h[1-3][^>]*>([^<]*)</h[1-3]>", html)
        assert headings.count("Bracket") <= 1, headings
        assert "Finals" in headings  # the third-place match's part keeps its title
    assert "Third place" in text(web.get(f"/events/{event.pk}/print/bracket"))


# --- every page: public, no navigation, nothing hidden ---------------------------------------


def test_no_page_prints_the_site_navigation_or_anything_hidden(web):
    event = club_event("single_elim")
    matches = list(Match.objects.filter(pk__in=Pairing.objects.filter(event=event).values("match")))
    assert matches

    for page in [*PAGES, "screen/panels"]:
        response = web.get(f"/events/{event.pk}/{page}")
        html = response.content.decode()
        assert response.status_code == 200, page
        assert '<header class="site">' not in html and 'aria-label="Main"' not in html, page
        assert 'href="/lobby"' not in html and "Sign in" not in html, page
        for match in matches:
            assert str(match.seed) not in html, page
            assert match.seed_commitment not in html, page
        assert "seed" not in text(response).lower(), page


def test_a_missing_event_is_not_found_and_a_draft_is_for_staff_only(web, admin_client):
    draft = services.event_create(name="Secret cup", format="swiss")

    for page in [*PAGES, "screen/panels"]:
        assert web.get(f"/events/999999/{page}").status_code == 404, page
        assert web.get(f"/events/{draft.pk}/{page}").status_code == 404, page
        assert admin_client.get(f"/events/{draft.pk}/{page}").status_code == 200, page


def test_before_the_first_round_each_page_says_what_it_will_show(web):
    event = services.event_create(name="Next week", format="single_elim", venue="tables")
    services.event_open_registration(event=event)
    for player in people(3):
        services.entry_add(event=event, player=player)

    pages = {page: web.get(f"/events/{event.pk}/{page}") for page in PAGES}

    assert all(response.status_code == 200 for response in pages.values())
    assert "No round has been paired yet" in text(pages["print/pairings"])
    assert "No table to score in this round" in text(pages["print/sheets"])
    assert "The bracket is drawn when the event starts" in text(pages["print/bracket"])
    standings = text(pages["print/standings"])
    assert "Entries" in standings and all(name in standings for name in NAMES[:3])
    assert "The pairings show here when the event starts" in text(pages["screen"])


# --- the screen view ------------------------------------------------------------------------


def test_the_screen_view_cycles_at_the_asked_pace_and_refuses_a_bad_one(web):
    event = club_event("single_elim")

    default = web.get(f"/events/{event.pk}/screen").content.decode()
    slow = web.get(f"/events/{event.pk}/screen?every=40").content.decode()

    assert 'data-every="15"' in default and 'data-every="40"' in slow
    assert f'data-seq="{event.seq}"' in default
    for bad in ("2", "601", "abc", "1.5", "99999999999"):
        response = web.get(f"/events/{event.pk}/screen?every={bad}")
        assert response.status_code == 400, bad
        assert "every: a number of seconds per panel from 5 to 600" in response.content.decode()


def test_the_screen_shows_the_tables_the_standings_and_the_bracket(web):
    event = club_event("single_elim")

    response = web.get(f"/events/{event.pk}/screen")

    html = response.content.decode()
    assert re.findall(r'data-panel="(\w+)"', html) == ["pairings", "standings", "bracket"]
    assert rows(html) == pairs_of(event)
    assert "web/js/screen.js" in html
    swiss = club_event("swiss", people(4, "Swiss "))
    html = web.get(f"/events/{swiss.pk}/screen").content.decode()
    assert re.findall(r'data-panel="(\w+)"', html) == ["pairings", "standings"]


@pytest.mark.django_db(transaction=True)  # each change commits: the event's seq counts it
def test_the_screen_panels_are_read_again_with_the_newer_event(web):
    event = club_event("single_elim")
    before = web.get(f"/events/{event.pk}/screen/panels").content.decode()
    first = Pairing.objects.select_related("entry_b__player").get(event=event, key="R1.1")

    decide(event, "R1.1", first.entry_b.player)

    event.refresh_from_db()
    after = web.get(f"/events/{event.pk}/screen/panels").content.decode()
    assert re.search(r'data-seq="(\d+)"', after)[1] == str(event.seq)
    assert int(re.search(r'data-seq="(\d+)"', before)[1]) < event.seq
    assert f"✔ {first.entry_b.player.name}" in unescape(after)
    assert "<html" not in after  # the panels alone


def test_the_event_page_links_to_its_printed_pages_and_the_screen(web):
    event = club_event("single_elim")

    page = web.get(f"/events/{event.pk}").content.decode()

    for path in PAGES:
        assert f'href="/events/{event.pk}/{path}"' in page, path
