"""Ladders API: ladders, the queue (join, leave, status), leaderboards, ratings, head-to-head,
seasons.

One module per resource:

================  =====================================================================
module            holds
================  =====================================================================
``base``          what the others share: a ladder or 404, a rating rounded as shown,
                  the strict pagination, a season as listed
``ladders``       ladders and rated pools: list, create, show, change, and staff's
                  commands (open, close, queue the bots)
``queue``         a player's place in a ladder's queue: see it, join, leave
``ratings``       the leaderboard, a player's rating (with their seasons), its history
``head_to_head``  one player's record against another (on the ratings' serializers)
``seasons``       a ladder's seasons, opening the next, a division's standings
================  =====================================================================

Views validate input, call a service or selector, and serialize. A refused request changes
nothing and answers 4xx in the project's error shape: 409 for a request that does not fit the
caller's state (already queued, in a match, not queued), 400 naming the field for bad query
parameters (a page number that is not a positive integer, or absurdly large), 404 for a page
past the end. The modules import ``base`` (and ``head_to_head`` the ratings' serializers),
never each other the other way.

``urlpatterns`` stays here, so ``include("ladders.api")`` keeps working, and every serializer
and view is offered here by name as it was by the single ``ladders.api`` module.
"""

from django.urls import path

from ladders.api.base import MAX_PAGE, SeasonSerializer, StrictPagination
from ladders.api.head_to_head import (
    HeadToHeadQuerySerializer,
    HeadToHeadSerializer,
    HeadToHeadView,
)
from ladders.api.ladders import (
    LadderCloseView,
    LadderDetailView,
    LadderListView,
    LadderOpenView,
    LadderQueueBotsView,
    LadderSerializer,
    LadderWriteSerializer,
    StaffMayChangeLadders,
    ladder_update,
)
from ladders.api.queue import QueueJoinSerializer, QueueStatusSerializer, QueueView
from ladders.api.ratings import (
    BoardRowSerializer,
    LeaderboardQuerySerializer,
    LeaderboardSerializer,
    LeaderboardView,
    PlayerRatingSerializer,
    PlayerRatingView,
    PlayerSeasonSerializer,
    RatingChangeSerializer,
    RatingHistoryView,
    RatingSerializer,
)
from ladders.api.seasons import (
    SeasonListView,
    SeasonOpenSerializer,
    SeasonStandingsView,
    StandingSerializer,
    StandingsQuerySerializer,
    StandingsSerializer,
)

__all__ = [
    "MAX_PAGE",
    "BoardRowSerializer",
    "HeadToHeadQuerySerializer",
    "HeadToHeadSerializer",
    "HeadToHeadView",
    "LadderCloseView",
    "LadderDetailView",
    "LadderListView",
    "LadderOpenView",
    "LadderQueueBotsView",
    "LadderSerializer",
    "LadderWriteSerializer",
    "LeaderboardQuerySerializer",
    "LeaderboardSerializer",
    "LeaderboardView",
    "PlayerRatingSerializer",
    "PlayerRatingView",
    "PlayerSeasonSerializer",
    "QueueJoinSerializer",
    "QueueStatusSerializer",
    "QueueView",
    "RatingChangeSerializer",
    "RatingHistoryView",
    "RatingSerializer",
    "SeasonListView",
    "SeasonOpenSerializer",
    "SeasonSerializer",
    "SeasonStandingsView",
    "StaffMayChangeLadders",
    "StandingSerializer",
    "StandingsQuerySerializer",
    "StandingsSerializer",
    "StrictPagination",
    "ladder_update",
    "urlpatterns",
]

urlpatterns = [
    path("ladders", LadderListView.as_view(), name="ladder-list"),
    path("ladders/<int:pk>", LadderDetailView.as_view(), name="ladder-detail"),
    path("ladders/<int:pk>/queue", QueueView.as_view(), name="ladder-queue"),
    path("ladders/<int:pk>/open", LadderOpenView.as_view(), name="ladder-open"),
    path("ladders/<int:pk>/close", LadderCloseView.as_view(), name="ladder-close"),
    path("ladders/<int:pk>/queue-bots", LadderQueueBotsView.as_view(), name="ladder-queue-bots"),
    path("ladders/<int:pk>/leaderboard", LeaderboardView.as_view(), name="ladder-leaderboard"),
    path(
        "ladders/<int:pk>/ratings/<int:player_id>",
        PlayerRatingView.as_view(),
        name="ladder-rating",
    ),
    path(
        "ladders/<int:pk>/ratings/<int:player_id>/history",
        RatingHistoryView.as_view(),
        name="ladder-rating-history",
    ),
    path("ladders/<int:pk>/head-to-head", HeadToHeadView.as_view(), name="ladder-head-to-head"),
    path("ladders/<int:pk>/seasons", SeasonListView.as_view(), name="ladder-seasons"),
    path(
        "ladders/<int:pk>/seasons/<int:number>",
        SeasonStandingsView.as_view(),
        name="ladder-season-standings",
    ),
]
