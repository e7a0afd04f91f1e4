"""Play API: matches and challenges, the caller's view of a game, moves, replays, open games.

One module per resource:

==============  =======================================================================
module          holds
==============  =======================================================================
``base``        what the others share: a player in brief, the rules field, the time
                control, the id filter, a match looked up as the caller may see it
``matches``     a match as rendered, the list (and a challenge posted), one match, and
                accept, decline, cancel, resign
``replays``     a finished match's replay
``analysis``    a finished match's analysis: asked for, read
``games``       the caller's view of a game (with its ``ETag``), a move, Continue
``seeks``       open games: the lobby, posting, joining, cancelling
==============  =======================================================================

Views validate input, call a service or selector, and serialize. The modules import
``base`` and nothing of each other.

What other code imported from the single ``games.api`` module is re-exported here (the
tournaments' and ladders' APIs render players, rules and matches with these serializers;
the bots' streams render a match as the API does), and ``urlpatterns`` stays here, so
``include("games.api")`` and ``from games.api import MatchSerializer`` keep working.
"""

from django.urls import path

from games.api.analysis import MatchAnalysisView
from games.api.base import (
    RULES_MAX_OPTIONS,
    RULES_NAME_MAX_LENGTH,
    IdFilter,
    PlayerBriefSerializer,
    RulesField,
    TimeControlSerializer,
)
from games.api.games import (
    MOVE_RULES,
    GameActionView,
    GameContinueView,
    GameView,
    GameViewSerializer,
    arrived_at,
)
from games.api.matches import (
    GameBriefSerializer,
    MatchAcceptView,
    MatchCancelView,
    MatchCreateSerializer,
    MatchDeclineView,
    MatchDetailView,
    MatchFilter,
    MatchListSerializer,
    MatchListView,
    MatchRatingSerializer,
    MatchResignView,
    MatchSerializer,
    RatingPoolSerializer,
)
from games.api.replays import MatchReplayView
from games.api.seeks import (
    SeekCancelView,
    SeekCreateSerializer,
    SeekDetailView,
    SeekJoinView,
    SeekListView,
    SeekPosterSerializer,
    SeekSerializer,
)

__all__ = [
    "MOVE_RULES",
    "RULES_MAX_OPTIONS",
    "RULES_NAME_MAX_LENGTH",
    "GameActionView",
    "GameBriefSerializer",
    "GameContinueView",
    "GameView",
    "GameViewSerializer",
    "IdFilter",
    "MatchAcceptView",
    "MatchAnalysisView",
    "MatchCancelView",
    "MatchCreateSerializer",
    "MatchDeclineView",
    "MatchDetailView",
    "MatchFilter",
    "MatchListSerializer",
    "MatchListView",
    "MatchRatingSerializer",
    "MatchReplayView",
    "MatchResignView",
    "MatchSerializer",
    "PlayerBriefSerializer",
    "RatingPoolSerializer",
    "RulesField",
    "SeekCancelView",
    "SeekCreateSerializer",
    "SeekDetailView",
    "SeekJoinView",
    "SeekListView",
    "SeekPosterSerializer",
    "SeekSerializer",
    "TimeControlSerializer",
    "arrived_at",
    "urlpatterns",
]

urlpatterns = [
    path("matches", MatchListView.as_view(), name="match-list"),
    path("matches/<int:pk>", MatchDetailView.as_view(), name="match-detail"),
    path("matches/<int:pk>/accept", MatchAcceptView.as_view(), name="match-accept"),
    path("matches/<int:pk>/decline", MatchDeclineView.as_view(), name="match-decline"),
    path("matches/<int:pk>/cancel", MatchCancelView.as_view(), name="match-cancel"),
    path("matches/<int:pk>/resign", MatchResignView.as_view(), name="match-resign"),
    path("matches/<int:pk>/replay", MatchReplayView.as_view(), name="match-replay"),
    path("matches/<int:pk>/analysis", MatchAnalysisView.as_view(), name="match-analysis"),
    path("games/<int:pk>", GameView.as_view(), name="game-detail"),
    path("games/<int:pk>/actions", GameActionView.as_view(), name="game-actions"),
    path("games/<int:pk>/continue", GameContinueView.as_view(), name="game-continue"),
    path("seeks", SeekListView.as_view(), name="seek-list"),
    path("seeks/<int:pk>", SeekDetailView.as_view(), name="seek-detail"),
    path("seeks/<int:pk>/join", SeekJoinView.as_view(), name="seek-join"),
    path("seeks/<int:pk>/cancel", SeekCancelView.as_view(), name="seek-cancel"),
]
