/* Plays a table of each game (President, Auction Pitch, Lopti) against random bots, with the
types generated from the API's schema (src/schema.d.ts, openapi-typescript) and openapi-fetch:
every path, parameter, body and answer below is checked by `tsc --strict`.

    node dist/play.js [--base-url http://127.0.0.1:8000] [--timeout 300]

The same program as clients/python/play.py: one user registered for the three tables; for each
game a table with the fewest seats the game allows and options that make it short, the other
seats filled with `random` bots (`bot_delay: 0`: they move at once), started and played to the
end by long-polling the state (`?wait=` with the last `ETag` in `If-None-Match`) and sending
one of `legal_moves` to the endpoint that takes it whenever the list is not empty. In Lopti it
also proposes a Rule Vote once (a bot that opposes it ties the vote, which goes to a
rock-paper-scissors duel the program throws in) and declines the house rule when it wins a
round. One line per finished table; exit status 1 on any failure. */

import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type State = Schemas["State"];
type Table = Schemas["Table"];
type GameSlug = Schemas["GameEnum"];
type LegalMove = State["legal_moves"][number];
type Api = Client<paths>;

const WAIT = 25; // seconds a state long-poll may be held (the server allows up to 30)

class Failure extends Error {}

/** The error the server answered, in its one shape `{code, message, detail}`, as text. */
function explain(what: string, error: Schemas["Error"] | undefined, response: Response): Failure {
  return new Failure(error ? `${what}: ${error.code} (${error.message})` : `${what}: HTTP ${response.status}`);
}

/** A game's table: the options that keep it short (GET /games lists each game's options). */
interface Plan {
  game: GameSlug;
  options: Record<string, number | string | boolean>;
}

const PLANS: Plan[] = [
  // One hand instead of playing to 11 points (P-7.2).
  { game: "president", options: { hands: 1 } },
  // The first to 1 point wins: usually the first hand.
  { game: "pitch", options: { target_score: 1 } },
  // Two rounds (so a round's winner may have a house rule to write or decline, L-11.1), few
  // cards and no draw pile.
  { game: "lopti", options: { rounds: 2, draw_rule: "none", hand_size: 2, face_up_count: 1, face_down_count: 1 } },
];

async function register(baseUrl: string): Promise<Api> {
  const anonymous = createClient<paths>({ baseUrl });
  const username = `ts-${randomBytes(4).toString("hex")}`;
  const { data, error, response } = await anonymous.POST("/api/v1/auth/register", {
    body: { username, password: randomBytes(16).toString("base64url") },
  });
  if (!data) throw explain("register", error, response);
  return createClient<paths>({ baseUrl, headers: { Authorization: `Token ${data.token}` } });
}

async function createTable(api: Api, plan: Plan, catalogue: Schemas["Game"][]): Promise<Table> {
  const game = catalogue.find((g) => g.slug === plan.game);
  if (!game) throw new Failure(`${plan.game}: not in GET /games`);
  const created = await api.POST("/api/v1/tables", {
    body: { game: plan.game, seats: game.min_players, options: { ...plan.options, bot_delay: 0 } },
  });
  if (!created.data) throw explain("create the table", created.error, created.response);
  const table = created.data;
  for (let seat = 1; seat < game.min_players; seat++) {
    const bot = await api.POST("/api/v1/tables/{table_id}/bots", {
      params: { path: { table_id: table.id } },
      body: { level: "random", seat },
    });
    if (!bot.data) throw explain(`a bot in seat ${seat}`, bot.error, bot.response);
  }
  const started = await api.POST("/api/v1/tables/{table_id}/start", { params: { path: { table_id: table.id } } });
  if (!started.data) throw explain("start", started.error, started.response);
  return started.data;
}

/** One seat of one table, played to the end. */
class Player {
  etag: string | undefined;
  decisions = 0;
  proposed = false;
  declined = 0;
  throws = 0;

  constructor(
    readonly api: Api,
    readonly tableId: string,
  ) {}

  /** The next state (undefined while it has not changed): a long-poll from the last ETag, or
   * at once after our own decision (the ETag is then cleared). */
  async poll(): Promise<State | undefined> {
    const path = { table_id: this.tableId };
    const { data, error, response } = this.etag
      ? await this.api.GET("/api/v1/tables/{table_id}/state", {
          params: { path, query: { wait: WAIT }, header: { "If-None-Match": this.etag } },
        })
      : await this.api.GET("/api/v1/tables/{table_id}/state", { params: { path } });
    if (response.status === 304) return undefined;
    if (!data) throw explain("state", error, response);
    this.etag = response.headers.get("ETag") ?? undefined;
    return data;
  }

  async play(timeoutSeconds: number): Promise<State> {
    const end = Date.now() + timeoutSeconds * 1000;
    while (Date.now() < end) {
      const state = await this.poll();
      if (!state) continue;
      if (state.status === "finished") return state;
      const move = choose(state.legal_moves);
      if (move) {
        await this.decide(move);
        this.etag = undefined; // our own change: read the state it made at once
      } else if (this.mayPropose(state)) {
        await this.propose();
      }
    }
    throw new Failure(`no end within ${timeoutSeconds} s`);
  }

  /** Sends `move` to the endpoint that takes it: Lopti's house-rule decline, ballots, champions
   * and throws have their own (api.md); every other move goes to /moves as listed. */
  async decide(move: LegalMove): Promise<void> {
    this.decisions += 1;
    const what = `${move.type} (decision ${this.decisions})`;
    const path = { table_id: this.tableId };
    switch (move.type) {
      case "decline_rule": {
        // L-11.1: the round's winner may write a house rule
        this.declined += 1;
        const r = await this.api.POST("/api/v1/tables/{table_id}/house-rules", { params: { path }, body: { decline: true } });
        if (!r.data) throw explain(what, r.error, r.response);
        return;
      }
      case "ballot": {
        // L-12.2: a member's ballot on a Rule Vote
        const r = await this.api.POST("/api/v1/tables/{table_id}/rule-votes/{vote_id}/ballots", {
          params: { path: { ...path, vote_id: move.vote_id } },
          body: { yes: move.yes },
        });
        if (!r.data) throw explain(what, r.error, r.response);
        return;
      }
      case "champion": {
        // L-12.3: come forward for a tied vote
        const r = await this.api.POST("/api/v1/tables/{table_id}/rule-votes/{vote_id}/champions", {
          params: { path: { ...path, vote_id: move.vote_id } },
        });
        if (!r.data) throw explain(what, r.error, r.response);
        return;
      }
      case "throw": {
        // L-12.4: a throw of the duel
        this.throws += 1;
        const r = await this.api.POST("/api/v1/tables/{table_id}/duels/{duel_id}/throws", {
          params: { path: { ...path, duel_id: move.duel_id } },
          body: { throw: move.throw },
        });
        if (!r.data) throw explain(what, r.error, r.response);
        return;
      }
      default: {
        // a game move, abstain and no_champion: the move endpoint takes it as listed
        const r = await this.api.POST("/api/v1/tables/{table_id}/moves", { params: { path }, body: move });
        if (!r.data) throw explain(what, r.error, r.response);
      }
    }
  }

  /** Once, in a Lopti round's play, when no vote was proposed this round (L-12.1). */
  mayPropose(state: State): boolean {
    if (state.game !== "lopti" || state.public === null || this.proposed) return false;
    const { vote_used, vote, window } = state.public;
    return state.phase === "play" && !vote_used && vote === null && !(window !== null && window.open);
  }

  /** A Rule Vote on a base rule for the next round: a bot that votes no ties it, and the tie
   * goes to a rock-paper-scissors duel (L-12.3). */
  async propose(): Promise<void> {
    this.proposed = true;
    const r = await this.api.POST("/api/v1/tables/{table_id}/rule-votes", {
      params: { path: { table_id: this.tableId } },
      body: { kind: "base_rule", applies: "next_round", key: "extra_play_on_clear", value: false },
    });
    // The window may have opened or the round ended in between: a 409 is no failure.
    if (!r.data && r.error?.code !== "conflict") throw explain("propose a Rule Vote", r.error, r.response);
  }
}

/** A move that ends games soon: no pile taken while a card can be played, no swap. */
function choose(legal: readonly LegalMove[]): LegalMove | undefined {
  const cost = (move: LegalMove): number => (move.type === "take_pile" ? 2 : move.type === "swap" ? 1 : 0);
  return [...legal].sort((a, b) => cost(a) - cost(b))[0];
}

/** The end of a table, from its typed state. */
function summary(state: State): string {
  const winners = state.public === null ? [] : state.public.winners;
  return `scores ${JSON.stringify(state.scores)}, winners ${JSON.stringify(winners)} (you: seat ${state.you?.seat ?? "none"})`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      "base-url": { type: "string", default: "http://127.0.0.1:8000" },
      timeout: { type: "string", default: "300" },
    },
  });
  const baseUrl = values["base-url"];
  const timeout = Number(values.timeout);
  const api = await register(baseUrl);
  const games = await api.GET("/api/v1/games");
  if (!games.data) throw explain("games", games.error, games.response);
  let failed = 0;
  for (const plan of PLANS) {
    const started = Date.now();
    try {
      const table = await createTable(api, plan, games.data);
      const player = new Player(api, table.id);
      const state = await player.play(timeout);
      const extra =
        plan.game === "lopti"
          ? `, rule vote proposed: ${player.proposed}, throws: ${player.throws}, rules declined: ${player.declined}`
          : "";
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `${plan.game}: finished, table ${table.id}, ${table.seats.length} seats, ${player.decisions} decisions, ` +
          `${summary(state)}${extra} (${seconds} s)`,
      );
    } catch (exc) {
      if (!(exc instanceof Failure || exc instanceof TypeError)) throw exc;
      failed += 1;
      console.error(`${plan.game}: FAILED: ${exc.message}`);
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (status) => process.exit(status),
  (exc: unknown) => {
    console.error(exc);
    process.exit(1);
  },
);
