from django.urls import path

from accounts import apis as accounts_apis
from games.api import fairness as fairness_apis
from games.api import invitations as invitation_apis
from games.api import lopti as lopti_apis
from games.api import push as push_apis
from games.api import ratings as ratings_apis
from games.api import tables as games_apis
from games.api.state import table_state

urlpatterns = [
    path("auth/register", accounts_apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token", accounts_apis.TokenApi.as_view(), name="auth-token"),
    path("me", accounts_apis.MeApi.as_view(), name="me"),
    path("me/tables", accounts_apis.MeTablesApi.as_view(), name="me-tables"),
    path("me/tokens", accounts_apis.MeTokensApi.as_view(), name="me-tokens"),
    path("me/tokens/<int:token_id>", accounts_apis.MeTokenDetailApi.as_view(), name="me-token"),
    path("bot/account/upgrade", accounts_apis.BotAccountUpgradeApi.as_view(), name="bot-account-upgrade"),
    path("me/webhooks", push_apis.WebhooksApi.as_view(), name="me-webhooks"),
    path("me/webhooks/<int:webhook_id>", push_apis.WebhookDetailApi.as_view(), name="me-webhook"),
    path("me/webhooks/<int:webhook_id>/deliveries", push_apis.WebhookDeliveriesApi.as_view(), name="me-webhook-deliveries"),
    path("me/invitations", invitation_apis.MeInvitationsApi.as_view(), name="me-invitations"),
    path("me/invitations/<int:invitation_id>/accept", invitation_apis.MeInvitationAcceptApi.as_view(),
         name="me-invitation-accept"),
    path("me/invitations/<int:invitation_id>/decline", invitation_apis.MeInvitationDeclineApi.as_view(),
         name="me-invitation-decline"),
    path("games", games_apis.GamesApi.as_view(), name="games"),
    path("leaderboards/<slug:game>", ratings_apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("players/<str:username>", ratings_apis.PlayerApi.as_view(), name="player"),
    path("lobby/<slug:game>/quick-play", ratings_apis.QuickPlayApi.as_view(), name="quick-play"),
    path("tables", games_apis.TablesApi.as_view(), name="tables"),
    path("tables/<uuid:table_id>", games_apis.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<uuid:table_id>/join", games_apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<uuid:table_id>/leave", games_apis.TableLeaveApi.as_view(), name="table-leave"),
    path("tables/<uuid:table_id>/bots", games_apis.TableBotsApi.as_view(), name="table-bots"),
    path("tables/<uuid:table_id>/back", games_apis.TableBackApi.as_view(), name="table-back"),
    path("tables/<uuid:table_id>/start", games_apis.TableStartApi.as_view(), name="table-start"),
    path("tables/<uuid:table_id>/invitations", invitation_apis.TableInvitationsApi.as_view(), name="table-invitations"),
    path("tables/<uuid:table_id>/rematch", invitation_apis.TableRematchApi.as_view(), name="table-rematch"),
    path("tables/<uuid:table_id>/state", table_state, name="table-state"),
    path("tables/<uuid:table_id>/moves", games_apis.TableMovesApi.as_view(), name="table-moves"),
    path("tables/<uuid:table_id>/export", fairness_apis.TableExportApi.as_view(), name="table-export"),
    path("replays/verify", fairness_apis.ReplayVerifyApi.as_view(), name="replays-verify"),
    path("tables/<uuid:table_id>/events", push_apis.TableEventsApi.as_view(), name="table-events"),
    path("stream/events", push_apis.AccountEventsApi.as_view(), name="stream-events"),
    path("tables/<uuid:table_id>/house-rules", lopti_apis.HouseRulesApi.as_view(), name="lopti-house-rules"),
    path("tables/<uuid:table_id>/house-rules/<int:rule_id>", lopti_apis.HouseRuleDetailApi.as_view(), name="lopti-house-rule"),
    path("tables/<uuid:table_id>/rule-votes", lopti_apis.RuleVotesApi.as_view(), name="lopti-votes"),
    path("tables/<uuid:table_id>/rule-votes/<int:vote_id>", lopti_apis.RuleVoteDetailApi.as_view(), name="lopti-vote"),
    path("tables/<uuid:table_id>/rule-votes/<int:vote_id>/ballots", lopti_apis.BallotsApi.as_view(), name="lopti-ballots"),
    path("tables/<uuid:table_id>/rule-votes/<int:vote_id>/champions", lopti_apis.ChampionsApi.as_view(), name="lopti-champions"),
    path("tables/<uuid:table_id>/duels/<int:duel_id>", lopti_apis.DuelDetailApi.as_view(), name="lopti-duel"),
    path("tables/<uuid:table_id>/duels/<int:duel_id>/throws", lopti_apis.ThrowsApi.as_view(), name="lopti-throws"),
    path("tables/<uuid:table_id>/sessions", lopti_apis.SessionsApi.as_view(), name="lopti-sessions"),
]
