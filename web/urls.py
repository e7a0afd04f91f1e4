"""Web pages at the site root: sign-in, lobby, tables, replays, events, leaderboards."""

from django.urls import include, path

from web import account_views, fairplay_views, help_views, paper_views, views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("login", views.SignInView.as_view(), name="login"),
    path("logout", views.sign_out, name="logout"),
    path("signup", views.sign_up, name="signup"),
    path("account", account_views.account, name="account"),
    path("account/password", account_views.PasswordChangeView.as_view(), name="password_change"),
    path("account/delete", account_views.account_delete, name="account_delete"),
    path("account/name", account_views.account_name, name="account_name"),
    path("account/preferences", account_views.account_preferences, name="account_preferences"),
    path("account/e-mail-me", account_views.account_email_events, name="account_email_events"),
    path("unsubscribe/<str:token>", account_views.unsubscribe, name="unsubscribe"),
    path("join/<str:token>", account_views.guest_claim, name="guest_claim"),
    path("password-reset", account_views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password-reset/sent",
        account_views.PasswordResetSentView.as_view(),
        name="password_reset_sent",
    ),
    path(
        "password-reset/<uidb64>/<token>",
        account_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done",
        account_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path("lobby", views.lobby, name="lobby"),
    path("how-to-play", help_views.how_to_play, name="how_to_play"),
    path("games/<int:pk>", views.table, name="table"),
    path("matches/<int:pk>", views.match_detail, name="match"),
    path("matches/<int:pk>/replay", views.replay, name="replay"),
    path("matches/<int:pk>/analyse", views.analyse, name="analyse"),
    path("fair-play", fairplay_views.fair_play, name="fair_play"),
    path("fair-play/<int:pk>/dismiss", fairplay_views.fair_play_dismiss, name="fair_play_dismiss"),
    path(
        "fair-play/<int:pk>/assisted", fairplay_views.fair_play_assisted, name="fair_play_assisted"
    ),
    path("matches/<int:pk>/pad", views.pad, name="pad"),
    path("events", views.events, name="events"),
    path("events/<int:pk>", views.event_detail, name="event"),
    path("events/<int:pk>/print/pairings", paper_views.print_pairings, name="print_pairings"),
    path("events/<int:pk>/print/sheets", paper_views.print_sheets, name="print_sheets"),
    path("events/<int:pk>/print/standings", paper_views.print_standings, name="print_standings"),
    path("events/<int:pk>/print/bracket", paper_views.print_bracket, name="print_bracket"),
    path("events/<int:pk>/screen", paper_views.screen, name="screen"),
    path("events/<int:pk>/screen/panels", paper_views.screen_panels, name="screen_panels"),
    path("leaderboard", views.leaderboard, name="leaderboard"),
    path("players/<int:pk>", views.player_detail, name="player"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("organise/", include("web.organise.urls")),
]
