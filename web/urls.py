"""Web pages at the site root: sign-in, lobby, tables, replays, events, leaderboards."""

from django.urls import path

from web import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("login", views.SignInView.as_view(), name="login"),
    path("logout", views.sign_out, name="logout"),
    path("signup", views.sign_up, name="signup"),
    path("lobby", views.lobby, name="lobby"),
    path("games/<int:pk>", views.table, name="table"),
    path("matches/<int:pk>", views.match_detail, name="match"),
    path("matches/<int:pk>/replay", views.replay, name="replay"),
    path("events", views.events, name="events"),
    path("events/<int:pk>", views.event_detail, name="event"),
    path("leaderboard", views.leaderboard, name="leaderboard"),
    path("players/<int:pk>", views.player_detail, name="player"),
    path("favicon.ico", views.favicon, name="favicon"),
]
