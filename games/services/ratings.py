"""Ratings (api.md, "Ratings, leaderboards and quick play"): per game, from finishing orders,
with OpenSkill's Plackett-Luce model (a maintained library made for multiplayer rankings:
every place of a finishing order counts, ties included, and teams rate as units).

A finished table is rated when it is *rated*: the `rated` option (default on for public
tables), public, no staff deck or seed, at least two human seats, not aborted. The update runs
in the transaction that finishes the table, once per table (a RatedTable row, unique per
table), and writes a history row per player and match so `recompute_ratings` can rebuild every
rating from scratch and must arrive at the stored values.

What is rated, per game (the engines' `rating_matches`, rated in order, each match from the
last one's values), ruling: a table is ranked by what its game's rules decide, nothing more.
President, one match, the game's final order by total score (a table is one game, and its
hands are not independent matches — the roles of one hand set up the exchange of the next);
Auction Pitch, one match, the winner first and every other seat tied behind (the rules name
no second place, A-7.1), the two sides of a partnership table as teams; Lopti: one match per
round, in round order, each by the places that round's rules gave (with `play_for_places`
every seat in the order it went out, L-10.3; else the round's winner first and the rest
tied, L-10.1). Lopti's rounds are
rated one by one because each is a game of its own (a fresh deal, nothing carried over but the
round wins), and a round's full order of going out would otherwise be lost; a table stored
before its rounds were recorded is rated once by its order by round wins. Whatever the
matches, a table counts one game (`Rating.games`), and a win (`Rating.wins`) is the table's:
the first place of the engine's `finishing_order` (Lopti: the seats with most round wins,
L-2.2), not a round's. Bots are rated as their level's shared account, so beating the hard bot means
something; a level that fills several seats of one table gets those seats' updates together
(`_combine`), and one game played. A table keeps the places it was rated with (Pitch was
ranked by final score behind the winner before 2026-12-02): `ratings_recompute` reads them
from the history, never from the engine.

Bot accounts (api.md, "Bot accounts"), ruling: two pools that never meet. *People* are the
human accounts and the built-in bots' levels (rated as before); *bot accounts* are the other
pool, with their own leaderboard. A table is rated in each pool on its own, as if the other
pool's seats were not there: each match's finishing order keeps only that pool's seats (their
order among themselves, ties kept) and its sides only that pool's seats. So a person's rating
never moves because of a bot account (finishing behind one costs nothing, beating one gains
nothing), and a bot account's rating says how it does against other bot accounts only. Beside
the table's conditions, the people's pool is rated with two or more human seats (as before), the
bot accounts' pool with two or more bot accounts, and each needs two sides of its own at the
table. The history numbers a table's matches people's first, then bot accounts' (each pool's
matches a match of their own), so `ratings_recompute` replays them as any other. A win is
still the table's: a person who finished second behind a bot account did not win it."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from openskill.models import PlackettLuce

from games.models import RatedTable, Rating, RatingHistory, RatingReset, Seat, Table

MODEL = PlackettLuce()
DEFAULT_MU = MODEL.mu
DEFAULT_SIGMA = MODEL.sigma


def display(mu: float, sigma: float) -> int:
    """The leaderboard number: the conservative estimate mu - 3 sigma, scaled so that a new
    player shows 1000 and one point of mu is worth 40."""
    return round(1000 + 40 * (mu - 3 * sigma))


def _rateable(table: Table) -> bool:
    """The table's own conditions: the `rated` option, public, no staff deck or seed, not aborted."""
    return table.rated and not table.private and table.deck is None and not table.staff_seed and not table.aborted


def bot_accounts_of(rows: dict) -> set[int]:
    """The ids of the bot accounts seated: from the seats' players when they were read with
    them (a move's lock reads them), else one query."""
    from django.contrib.auth import get_user_model

    players = [row for row in rows.values() if row.user_id and not row.is_bot]
    if all(Seat.user.is_cached(row) for row in players):
        return {row.user_id for row in players if row.user.is_bot_account}
    ids = {row.user_id for row in players}
    return set(get_user_model().objects.filter(pk__in=ids, is_bot_account=True).values_list("pk", flat=True))


def pools(rows: dict, teams: list[list[int]], bot_accounts: set[int]) -> list[list[list[int]]]:
    """The pools rated at a table (the module's ruling), each as its sides (lists of seats, only
    that pool's, none empty): the people's first, then the bot accounts'."""
    people = {seat for seat, row in rows.items() if row.user_id not in bot_accounts}
    humans = sum(1 for seat in people if rows[seat].user_id and not rows[seat].is_bot)
    bots = set(rows) - people
    out = []
    for members, enough in ((people, humans >= 2), (bots, len(bots) >= 2)):
        sides = [kept for kept in ([seat for seat in side if seat in members] for side in teams) if kept]
        if enough and len(sides) >= 2:
            out.append(sides)
    return out


def within(places: list[list[int]], members: set[int]) -> list[list[int]]:
    """A finishing order (seats, best first, ties grouped) with only `members`' seats."""
    return [kept for kept in ([seat for seat in group if seat in members] for group in places) if kept]


def is_rated(table: Table, rows: dict, teams: list[list[int]] | None = None) -> bool:
    """Whether a finished table is rated in any pool (`teams`: its sides; each seat alone by default)."""
    if not _rateable(table):
        return False
    return bool(pools(rows, teams or [[seat] for seat in rows], bot_accounts_of(rows)))


def _rate(entrants: list[tuple[int, float, float]], places: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) of each entrant (team index, mu, sigma), teams ranked by `places`."""
    teams: dict[int, list] = {}
    order: list[tuple[int, int]] = []
    for team, mu, sigma in entrants:
        members = teams.setdefault(team, [])
        order.append((team, len(members)))
        members.append(MODEL.rating(mu=mu, sigma=sigma))
    team_ids = sorted(teams)
    rated = MODEL.rate([teams[t] for t in team_ids], ranks=[places[t] for t in team_ids])
    by_team = dict(zip(team_ids, rated, strict=True))
    return [(by_team[team][k].mu, by_team[team][k].sigma) for team, k in order]


# How the seats of one account in one match (a bot level in several seats) make its update;
# each RatedTable records the one it was rated with, so a recompute replays it.
SUM, MEAN = "sum", "mean"
COMBINE = SUM


def _combine(keys: list, before: dict, results: list[tuple[float, float]], how: str | None = None) -> dict:
    """One (mu, sigma) per account from its seats' results (`before`: each account's (mu,
    sigma) going in). An account in one seat takes the library's result as it is.

    SUM: the seats' updates together. OpenSkill (Weng-Lin) moves a rating's mu by its variance
    times the derivative of the match's log-likelihood with respect to that mu, and shrinks the
    variance by the second derivative; one skill seen in several seats of a match has the sum of
    those seats' derivatives. So mu' = mu + the sum of the seats' changes, and the variance takes
    every seat's shrink factor: sigma'^2 = s^2 * prod(sigma_k^2 / s^2), where s^2 = sigma^2 +
    tau^2 is the prior the library starts each seat from (kappa bounds it as in the library).
    MEAN (the tables rated before 2026-12-01's fix): the mean of the seats' values, which counted
    a level's seats of a table as one seat's evidence."""
    how = how or COMBINE
    seats: dict = {}
    for key, result in zip(keys, results, strict=True):
        seats.setdefault(key, []).append(result)
    combined = {}
    for key, got in seats.items():
        if len(got) == 1:
            combined[key] = got[0]
        elif how == MEAN:
            combined[key] = (sum(mu for mu, _ in got) / len(got), sum(sigma for _, sigma in got) / len(got))
        else:
            mu, sigma = before[key]
            prior = sigma * sigma + MODEL.tau * MODEL.tau
            shrink = 1.0
            for _, sigma_k in got:
                shrink *= sigma_k * sigma_k / prior
            combined[key] = (mu + sum(mu_k - mu for mu_k, _ in got), (prior * max(shrink, MODEL.kappa)) ** 0.5)
    return combined


def places_of_teams(places: list[list[int]], teams: list[list[int]]) -> list[int]:
    """The place of each team (1 = first) in a finishing order: its best seat's."""
    place_of = {seat: i + 1 for i, group in enumerate(places) for seat in group}
    return [min(place_of[s] for s in seats) for seats in teams]


def match(current: dict, places: list[list[int]], teams: list[list[int]], account) -> tuple[dict, list[int], list]:
    """One rated match, in memory: `current` maps each account to its (mu, sigma), `places` is
    the finishing order (seats, best first, ties grouped), `teams` the sides (lists of seats) and
    `account(seat)` the account of a seat. Returns ({account: (mu, sigma) after}, the place of
    each team, the (team, account) of each seat). `record_finished` stores it; `simulate
    --rated` rates bot-only tables with it, writing nothing."""
    team_places = places_of_teams(places, teams)
    entrants = [(team_index, account(s)) for team_index, seats in enumerate(teams) for s in seats]
    results = _rate([(team, *current[key]) for team, key in entrants], team_places)
    return _combine([key for _, key in entrants], current, results), team_places, entrants


def matches_in_order(current: dict, matches: list[list[list[int]]], teams: list[list[int]], account) -> list[tuple]:
    """A table's matches (the engine's `rating_matches`) rated one after another, each from the
    previous one's after-values: per match (before, after, team places, entrants), the last three
    as `match` gives them. `current` is left as it was."""
    current = dict(current)
    rated = []
    for places in matches:
        merged, team_places, entrants = match(current, places, teams, account)
        rated.append((dict(current), merged, team_places, entrants))
        current.update(merged)
    return rated


def record_finished(table: Table, *, rows: dict, places: list[list[int]], teams: list[list[int]],
                    matches: list[list[list[int]]] | None = None) -> bool:
    """Under the table lock, in the transaction that finished the table: update the ratings
    of its players. `rows` maps current seats to seat rows; `places` is the engine's finishing
    order (seats, best first, ties grouped), `teams` its sides (each seat alone, or the
    partnerships) and `matches` the finishing orders it is rated as, in order (the engine's
    `rating_matches`; default: `places` alone). Each match leaves a history row per seat
    (`match` its index); the table counts one game, won by the teams of `places`' first
    place. Returns whether the table was rated."""
    matches = [places] if matches is None else matches
    if not _rateable(table) or not places or not matches:
        return False
    rated_pools = pools(rows, teams, bot_accounts_of(rows))
    if not rated_pools:
        return False
    user_ids = sorted({rows[s].user_id for sides in rated_pools for side in sides for s in side})
    try:
        with transaction.atomic():
            rated = RatedTable.objects.create(table=table, game=table.game, combine=COMBINE)
    except IntegrityError:
        return False  # rated already
    for uid in user_ids:
        Rating.objects.get_or_create(
            user_id=uid, game=table.game,
            defaults={"mu": DEFAULT_MU, "sigma": DEFAULT_SIGMA, "rating": display(DEFAULT_MU, DEFAULT_SIGMA)},
        )
    current = {r.user_id: r for r in Rating.objects.select_for_update().filter(user_id__in=user_ids, game=table.game).order_by("pk")}

    def account(seat):
        return rows[seat].user_id

    won = {account(s) for side, place in zip(teams, places_of_teams(places, teams), strict=True) if place == 1 for s in side}
    going_in = {uid: (r.mu, r.sigma) for uid, r in current.items()}
    rated_matches = []
    for sides in rated_pools:  # the pools share no account: each from the values going in
        members = {seat for side in sides for seat in side}
        rated_matches += matches_in_order(going_in, [within(order, members) for order in matches], sides, account)
    RatingHistory.objects.bulk_create(
        [
            RatingHistory(
                rated_table=rated, user_id=uid, game=table.game, match=index, team=team, place=team_places[team],
                won=uid in won, mu_before=before[uid][0], sigma_before=before[uid][1],
                mu_after=merged[uid][0], sigma_after=merged[uid][1],
            )
            for index, (before, merged, team_places, entrants) in enumerate(rated_matches)
            for team, uid in entrants
        ]
    )
    after = {uid: value for _, merged, _, _ in rated_matches for uid, value in merged.items()}
    for uid, (mu, sigma) in after.items():
        rating = current[uid]
        rating.mu, rating.sigma, rating.rating = mu, sigma, display(mu, sigma)
        rating.games += 1
        rating.wins += uid in won
        rating.save(update_fields=["mu", "sigma", "rating", "games", "wins", "updated_at"])
    return True


def rating_reset(*, user, game: str) -> None:
    """Operators: a player's rating in a game starts over (recorded, so a recompute agrees)."""
    with transaction.atomic():
        last = RatedTable.objects.order_by("-id").values_list("id", flat=True).first() or 0
        RatingReset.objects.create(user=user, game=game, after=last)
        Rating.objects.filter(user=user, game=game).update(
            mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, rating=display(DEFAULT_MU, DEFAULT_SIGMA), games=0, wins=0
        )


def ratings_recompute(*, write: bool = False) -> list[str]:
    """Rebuild every rating from the history, in the order the tables were rated, and compare
    with the stored ratings (and each history row's before/after). Returns the differences;
    with `write`, stores the rebuilt values."""
    state: dict[tuple[int, str], list] = {}  # (user, game) -> [mu, sigma, games, wins]
    resets = list(RatingReset.objects.order_by("after", "id"))
    differences = []

    def fresh():
        return [DEFAULT_MU, DEFAULT_SIGMA, 0, 0]

    def apply_resets(upto: int):
        while resets and resets[0].after <= upto:
            reset = resets.pop(0)
            state[(reset.user_id, reset.game)] = fresh()

    for rated in RatedTable.objects.order_by("id").prefetch_related("entries"):
        apply_resets(rated.id - 1)
        by_match: dict[int, list] = {}
        for e in sorted(rated.entries.all(), key=lambda e: (e.match, e.team, e.id)):
            by_match.setdefault(e.match, []).append(e)
        for entries in by_match.values():  # the table's matches in order, each from the last's values
            places = {e.team: e.place for e in entries}
            place_list = [places.get(t, 0) for t in range(max(places) + 1)]
            for e in entries:
                mu, sigma, _, _ = state.setdefault((e.user_id, rated.game), fresh())
                if (mu, sigma) != (e.mu_before, e.sigma_before):
                    differences.append(f"table {rated.table_id} match {e.match}: user {e.user_id} before "
                                       f"{e.mu_before}/{e.sigma_before}, rebuilt {mu}/{sigma}")
            before = {e.user_id: tuple(state[(e.user_id, rated.game)][:2]) for e in entries}
            results = _rate([(e.team, *before[e.user_id]) for e in entries], place_list)
            merged = _combine([e.user_id for e in entries], before, results, rated.combine)
            for e in entries:
                if merged[e.user_id] != (e.mu_after, e.sigma_after):
                    differences.append(f"table {rated.table_id} match {e.match}: user {e.user_id} after "
                                       f"{e.mu_after}/{e.sigma_after}, rebuilt {merged[e.user_id]}")
            for uid, (mu, sigma) in merged.items():
                state[(uid, rated.game)][:2] = [mu, sigma]
        # One game per rated table, whatever its matches; its win is the table's.
        entries = rated.entries.all()
        winners = {e.user_id for e in entries if e.won}
        for uid in {e.user_id for e in entries}:
            acc = state[(uid, rated.game)]
            acc[2] += 1
            acc[3] += uid in winners
    apply_resets(2**62)
    stored = {(r.user_id, r.game): r for r in Rating.objects.all()}
    for key, (mu, sigma, games, wins) in state.items():
        rating = stored.get(key)
        values = (mu, sigma, display(mu, sigma), games, wins)
        if rating is None or (rating.mu, rating.sigma, rating.rating, rating.games, rating.wins) != values:
            differences.append(f"user {key[0]} {key[1]}: stored {rating and (rating.mu, rating.sigma, rating.games)}, rebuilt {values}")
            if write:
                Rating.objects.update_or_create(
                    user_id=key[0], game=key[1],
                    defaults={"mu": mu, "sigma": sigma, "rating": display(mu, sigma), "games": games, "wins": wins},
                )
    return differences


def leaderboard(game: str, *, bot_accounts: bool = False):
    """The people's leaderboard (humans and the built-in levels), or the bot accounts'."""
    return (
        Rating.objects.filter(game=game, games__gte=settings.LEADERBOARD_MIN_GAMES, user__is_active=True,
                              user__is_bot_account=bot_accounts)
        .select_related("user")
        .order_by("-rating", "-mu", "id")
    )


def rating_json(rating: Rating) -> dict:
    return {"rating": rating.rating, "mu": rating.mu, "sigma": rating.sigma, "games": rating.games, "wins": rating.wins}


def ratings_of(user) -> dict:
    return {r.game: rating_json(r) for r in Rating.objects.filter(user=user).order_by("game")}
