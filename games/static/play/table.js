/* One table. Everything shown comes from the API: the state view (GET /state, followed by
   long-poll), the table summary (GET /tables/{id}) and the move log (GET /moves?after=).
   The host of an open table invites players by name; a player of a finished one opens its
   rematch (or goes to it, once the summary names one).
   The browser decides nothing the server decides: a move is only ever one of
   `legal_moves`, sent as listed; selecting cards just picks which listed move to send. */
"use strict";

(() => {
  const { el, get, post, del, cardSpan, cardText, cardLabel, cardClass, showError } = Play;
  const tableId = document.getElementById("table").dataset.tableId;

  let state = null;
  let summary = null;
  let lastSeq = 0;
  let logBusy = false;
  let logAgain = false;
  let watcher = null;
  const selected = new Set();

  /* --- reading the state ---------------------------------------------------------------- */

  const me = () => Play.user();
  const mySeat = () => (state && state.you ? state.you.seat : null);

  function seatName(seat) {
    if (seat === null || seat === undefined) return "server";
    const row = state && state.seats[seat];
    const name = row && row.player ? row.player.username : "empty seat";
    return `seat ${seat} (${name}${seat === mySeat() ? ", you" : ""})`;
  }

  const cardsText = (codes) => (codes || []).map(cardText).join(" ");

  /* The cards a listed move uses, as keys of the selectable cards (hand, own face-up cards,
     and "down:<index>" for a face-down position); null for a move without cards. */
  function moveCards(move) {
    if (Array.isArray(move.cards)) return move.cards;
    if (move.card) return [move.card];
    if (move.hand_card) return [move.hand_card, move.face_up_card];
    if (move.type === "play_face_down") return [`down:${move.index}`];
    return null;
  }

  function describe(move) {
    switch (move.type) {
      case "play":
        return `Play ${move.cards ? cardsText(move.cards) : cardText(move.card || "?")}`.trim();
      case "give":
        return `Give ${cardsText(move.cards)}`;
      case "pass":
        return "Pass";
      case "bid":
        return move.value === 0 ? "Pass (bid 0)" : `Bid ${move.value}`;
      case "swap":
        return `Swap ${cardText(move.hand_card)} for ${cardText(move.face_up_card)}`;
      case "keep":
        return "Keep (no swap)";
      case "play_face_down":
        return `Play face-down card ${move.index + 1}`;
      case "take_pile":
        return "Take the pile";
      case "decline_rule":
        return "Decline to write a rule";
      case "write_rule":
        return "Write a house rule";
      case "propose_vote":
        return "Propose a Rule Vote";
      case "ballot":
        return move.yes ? "Vote yes" : "Vote no";
      case "abstain":
        return "Abstain";
      case "champion":
        return "Come forward as champion";
      case "no_champion":
        return "Do not come forward";
      case "throw":
        // The log keeps a throw secret until the pair is complete (L-12.4).
        return move.throw ? `Throw ${move.throw}` : "Throw (hidden until both threw)";
      default:
        return move.type;
    }
  }

  /* --- sending -------------------------------------------------------------------------- */

  /* A listed move goes to the endpoint the contract names for it: ballots, champions,
     throws and the winner's decline have their own; everything else is POST /moves.
     No expected_version: the server checks legality anyway, and in phases where several
     seats act at once (a swap, a vote) a bot's move in between would make it fail. */
  function endpointFor(move) {
    if (move.type === "ballot") return [`/tables/${tableId}/rule-votes/${move.vote_id}/ballots`, { yes: move.yes }];
    if (move.type === "champion") return [`/tables/${tableId}/rule-votes/${move.vote_id}/champions`, {}];
    if (move.type === "throw") return [`/tables/${tableId}/duels/${move.duel_id}/throws`, { throw: move.throw }];
    if (move.type === "decline_rule") return [`/tables/${tableId}/house-rules`, { decline: true }];
    return [`/tables/${tableId}/moves`, move];
  }

  async function act(fn) {
    showError(null);
    try {
      const result = await fn();
      if (result && result.state) applyState(result.state);
      watcher.refresh();
    } catch (err) {
      showError(err);
    }
  }

  const send = (move) => act(() => {
    const [path, body] = endpointFor(move);
    selected.clear();
    return post(path, body);
  });

  /* --- rendering ------------------------------------------------------------------------ */

  function applyState(next) {
    // Answers can cross (our move's response and a poll): never go back in versions.
    // The same version twice (a move's answer, then the poll) is the same state: no
    // re-render, which would also take focus from a field being typed in.
    if (state && next.version <= state.version) return;
    state = next;
    // A selection belongs to the legal moves it was made from.
    const still = new Set((state.legal_moves || []).flatMap((m) => moveCards(m) || []));
    for (const key of [...selected]) if (!still.has(key)) selected.delete(key);
    loadSummary();
    loadLog();
    render();
  }

  async function loadSummary() {
    try {
      const next = await get(`/tables/${tableId}`);
      // Two reads can cross; keep the newer.
      if (summary && next.version < summary.version) return;
      summary = next;
      renderActions();
    } catch (err) {
      showError(err);
    }
  }

  async function loadLog() {
    // One reader at a time (entries are appended in order); a version that arrives while it
    // reads makes it read once more, or that version's entries would wait for the next one.
    if (logBusy) {
      logAgain = true;
      return;
    }
    logBusy = true;
    try {
      for (;;) {
        logAgain = false;
        const entries = await get(`/tables/${tableId}/moves?after=${lastSeq}`);
        const list = document.getElementById("log");
        for (const entry of entries) {
          if (entry.seq <= lastSeq) continue;
          lastSeq = entry.seq;
          list.append(logItem(entry));
        }
        if (entries.length) list.scrollTop = list.scrollHeight; // the newest entry in view
        if (entries.length < 500 && !logAgain) break; // a full page means there is more
      }
    } catch (err) {
      showError(err);
    } finally {
      logBusy = false;
    }
  }

  function logItem(entry) {
    const who = entry.by === "server" && entry.seat === null ? "server" : seatName(entry.seat);
    const how = entry.bot ? " (bot)" : entry.by === "server" ? " (server)" : "";
    const events = (entry.events || []).map((e) => e.type).filter((t) => t !== entry.type);
    return el(
      "li",
      { dataset: { seq: entry.seq } },
      `#${entry.seq} ${who}${how}: ${describe(entry)}`,
      events.length ? el("span", { class: "muted" }, ` → ${events.join(", ")}`) : null,
    );
  }

  function withFocusKept(fn) {
    // Re-rendering replaces the buttons; give keyboard focus back to the same one.
    const key = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.focusKey
      : undefined;
    fn();
    if (key) {
      const again = document.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
      if (again) again.focus();
    }
  }

  function render() {
    withFocusKept(() => {
      renderStatus();
      renderSeats();
      renderPublic();
      renderYou();
      renderLopti();
      renderActions();
    });
  }

  function renderStatus() {
    document.getElementById("table-title").textContent = `${state.game[0].toUpperCase()}${state.game.slice(1)} table`;
    document.title = `${state.game} · Card games`;
    document.getElementById("status-line").textContent =
      `Status ${state.status} · phase ${state.phase} · round ${state.round} · version ${state.version}`;
    const turn = document.getElementById("turn-line");
    let text;
    if (state.status === "finished") {
      const winners = (state.public && state.public.winners) || [];
      text = `Finished. Winner${winners.length === 1 ? "" : "s"}: ${winners.map(seatName).join(", ") || "none"}`;
    } else if (state.legal_moves.length) text = "Your move";
    else if (state.status === "open") text = "Waiting for players";
    else if (state.turn !== null) text = `Waiting for ${seatName(state.turn)}`;
    else text = "Waiting for the other players";
    turn.textContent = text;
    turn.classList.toggle("yours", state.legal_moves.length > 0);
    renderDeadline();
  }

  function renderDeadline() {
    const line = document.getElementById("deadline-line");
    if (!state || !state.deadline || state.status !== "active") {
      line.textContent = "";
      return;
    }
    const left = Math.max(0, Math.round((new Date(state.deadline) - Date.now()) / 1000));
    line.textContent = `Deadline in ${left} s (${new Date(state.deadline).toLocaleTimeString()})`;
  }

  const SEAT_FACTS = [
    ["role", (v) => String(v).replace(/_/g, " ")],
    ["place", (v) => `place ${v}`],
    ["card_count", (v) => `${v} cards`],
    ["hand_count", (v) => `${v} in hand`],
    ["bid", (v) => `bid ${v}`],
    ["tricks_won", (v) => `${v} tricks`],
    ["round_wins", (v) => `${v} round wins`],
    ["passed", (v) => (v ? "passed" : null)],
    ["out", (v) => (v ? "out" : null)],
    ["swap_done", (v) => (v ? "swap done" : null)],
    ["skips", (v) => (v ? `${v} skips` : null)],
  ];

  function renderSeats() {
    const list = document.getElementById("seats");
    list.replaceChildren(
      ...state.seats.map((row, seat) => {
        const facts = [];
        if (row.is_bot) facts.push("bot");
        if (row.away) facts.push("away");
        if (state.dealer === seat) facts.push("dealer");
        for (const [key, fmt] of SEAT_FACTS) {
          if (row[key] !== undefined && row[key] !== null) {
            const text = fmt(row[key]);
            if (text) facts.push(text);
          }
        }
        if (state.scores) facts.push(`score ${state.scores[seat]}`);
        const item = el(
          "li",
          { class: seat === state.turn ? "seat acting" : "seat", dataset: { seat } },
          el("strong", {}, seatName(seat)),
          seat === state.turn ? " — to act" : "",
          el("span", { class: "facts" }, facts.join(" · ")),
        );
        // A face-up position is null once its card left it (L-8.1: picked up with an empty hand).
        const faceUp = (row.face_up || []).filter((code) => code);
        if (faceUp.length) {
          item.append(el("div", { class: "cards small", "aria-label": "face-up cards" }, "Face up: ", faceUp.map(cardSpan)));
        }
        if (row.face_down_positions && row.face_down_positions.length) {
          item.append(el("div", { class: "facts" }, `Face down: ${row.face_down_positions.length}`));
        }
        if (row.revealed_hand) {
          item.append(el("div", { class: "cards small" }, "Revealed hand: ", row.revealed_hand.map(cardSpan)));
        }
        return item;
      }),
    );
  }

  function fact(label, value) {
    return el("div", { class: "fact" }, el("span", { class: "label" }, `${label}: `), value);
  }

  const cardRow = (codes, label) =>
    el("span", { class: "cards small", "aria-label": label }, codes.length ? codes.map(cardSpan) : "—");

  function renderPublic() {
    const pub = state.public || {};
    const box = document.getElementById("public");
    const parts = [];
    if (state.game === "president") {
      parts.push(fact("Standing play", pub.trick ? el("span", {}, `${seatName(pub.trick.seat)} `, cardRow(pub.trick.cards, "standing play")) : "none (lead)"));
      if (pub.trick_plays && pub.trick_plays.length) {
        parts.push(fact("This trick", el("span", {}, pub.trick_plays.map((p) => el("span", { class: "play" }, `${seatName(p.seat)}: `, cardRow(p.cards || [], "play"))))));
      }
      if (pub.passed && pub.passed.length) parts.push(fact("Passed", pub.passed.map(seatName).join(", ")));
      if (pub.finish_order && pub.finish_order.length) parts.push(fact("Finished", pub.finish_order.map(seatName).join(", ")));
      parts.push(fact("Direction", `${pub.direction}${pub.revolution ? " · revolution" : ""}`));
      if (pub.exchange && pub.exchange.pending && pub.exchange.pending.length) parts.push(fact("Exchange pending", JSON.stringify(pub.exchange.pending)));
      if (pub.variations && pub.variations.length) parts.push(fact("Variations", pub.variations.join(", ")));
    } else if (state.game === "pitch") {
      parts.push(fact("Bids", (pub.bids || []).map((b) => `${seatName(b.seat)}: ${b.kind === "pass" ? "pass" : b.value}`).join("; ") || "none yet"));
      if (pub.high_bid) parts.push(fact("High bid", `${pub.high_bid} by ${seatName(pub.high_bidder)}`));
      parts.push(fact("Trump", pub.trump ? Play.suitName(pub.trump) : "not yet"));
      if (pub.pitcher !== null && pub.pitcher !== undefined) parts.push(fact("Pitcher", seatName(pub.pitcher)));
      parts.push(fact("Trick", el("span", {}, (pub.trick || []).map((p) => el("span", { class: "play" }, `${seatName(p.seat)}: `, cardSpan(p.card))))));
      parts.push(fact("Target", pub.target_score));
    } else if (state.game === "lopti") {
      parts.push(fact("Pile", cardRow(pub.pile || [], "play pile")));
      if (pub.top_rank) parts.push(fact("Top", `${pub.top_count} × ${pub.top_rank}`));
      if (pub.three_chain && pub.three_chain.length) parts.push(fact("3-chain", cardRow(pub.three_chain, "3-chain")));
      parts.push(fact("Low lock", pub.low_lock ? "on (play 7 or lower)" : "off"));
      if (pub.obligation !== null && pub.obligation !== undefined) parts.push(fact("3-obligation", seatName(pub.obligation)));
      if (pub.extra_plays) parts.push(fact("Extra plays", pub.extra_plays));
      parts.push(fact("Draw pile", `${pub.draw_pile_count} cards`));
      parts.push(fact("Cleared / discarded", `${pub.cleared_count} / ${pub.discarded_count}`));
      parts.push(fact("Round", `${pub.round}${pub.rounds ? ` of ${pub.rounds}` : ""} · session ${pub.session}`));
      if (pub.direction_reversed) parts.push(fact("Direction", "reversed"));
      if (pub.pause) parts.push(fact("Paused", `play waits for the ${pub.pause}`));
      if (pub.window && pub.window.open) parts.push(fact("Winner's window", `${seatName(pub.window.winner)} may write a house rule`));
    }
    box.replaceChildren(...parts);
  }

  /* --- your cards and moves ------------------------------------------------------------- */

  function cardButton(key, text, label, className, usable) {
    const pressed = selected.has(key);
    return el(
      "button",
      {
        type: "button",
        class: `${className}${pressed ? " selected" : ""}`,
        "aria-pressed": pressed ? "true" : "false",
        "aria-label": label,
        disabled: !usable,
        dataset: { card: key, focusKey: `card:${key}` },
        onclick: () => {
          if (selected.has(key)) selected.delete(key);
          else selected.add(key);
          render();
        },
      },
      text,
    );
  }

  const VOTE_MOVES = new Set(["ballot", "abstain", "champion", "no_champion", "throw"]);

  function moveButton(move, extra) {
    const text = describe(move);
    return el("button", { type: "button", class: extra || "", dataset: { focusKey: `move:${JSON.stringify(move)}` }, onclick: () => send(move) }, text);
  }

  function renderYou() {
    const panel = document.getElementById("you-panel");
    panel.hidden = !state.you || state.status === "open";
    if (panel.hidden) return;
    const legal = state.legal_moves || [];
    const cardMoves = legal.filter((m) => moveCards(m));
    const usable = new Set(cardMoves.flatMap(moveCards));
    const hand = state.you.hand || [];
    document.getElementById("hand").replaceChildren(
      ...(hand.length
        ? hand.map((code) => cardButton(code, cardText(code), cardLabel(code), cardClass(code), usable.has(code)))
        : [el("span", { class: "muted" }, "No cards in hand")]),
    );

    // Lopti: your own face-up cards and face-down positions are yours to pick too.
    const own = state.seats[state.you.seat] || {};
    const extra = [];
    const ownFaceUp = (own.face_up || []).filter((code) => code); // null: a position emptied (L-8.1)
    if (ownFaceUp.length) {
      extra.push(el("div", { class: "cards", role: "group", "aria-label": "Your face-up cards" }, "Face up: ",
        ownFaceUp.map((code) => cardButton(code, cardText(code), `face-up ${cardLabel(code)}`, cardClass(code), usable.has(code)))));
    }
    if (state.you.face_down_positions && state.you.face_down_positions.length) {
      extra.push(el("div", { class: "cards", role: "group", "aria-label": "Your face-down cards" }, "Face down: ",
        state.you.face_down_positions.map((i) => cardButton(`down:${i}`, "?", `face-down card ${i + 1}`, "card back", usable.has(`down:${i}`)))));
    }
    // President's card exchange (P-3): what you received and gave this hand, what you owe.
    const you = state.you;
    if (you.received && you.received.length) extra.push(fact("You received", cardRow(you.received, "cards received")));
    if (you.gave && you.gave.length) extra.push(fact("You gave", cardRow(you.gave, "cards given")));
    if (you.must_give) extra.push(fact("Card exchange", `give ${you.must_give} card${you.must_give === 1 ? "" : "s"} of your choice`));
    document.getElementById("own-table-cards").replaceChildren(...extra);

    const buttons = legal.filter((m) => !moveCards(m) && !VOTE_MOVES.has(m.type)).map((m) => moveButton(m));
    const chosen = [...selected];
    const sameSet = (m) => {
      const cards = moveCards(m);
      return cards.length === chosen.length && chosen.every((c) => cards.includes(c));
    };
    const exact = chosen.length ? cardMoves.filter(sameSet) : [];
    const sendButton = el("button", { type: "button", id: "send-selected", class: "primary", disabled: exact.length !== 1, dataset: { focusKey: "send-selected" }, onclick: () => exact.length === 1 && send(exact[0]) },
      exact.length === 1 ? describe(exact[0]) : chosen.length ? "No listed move uses exactly these cards" : cardMoves.length ? "Select cards to play" : "No card moves now");
    const nodes = [];
    if (cardMoves.length) nodes.push(sendButton);
    nodes.push(...buttons);
    if (chosen.length) {
      // Listed moves that use every selected card: a keyboard user's shortlist.
      const wider = cardMoves.filter((m) => !sameSet(m) && chosen.every((c) => moveCards(m).includes(c)));
      if (wider.length) {
        nodes.push(el("div", { class: "shortlist" }, el("span", { class: "muted" }, "Also with these cards: "),
          wider.slice(0, 12).map((m) => moveButton(m, "secondary")), wider.length > 12 ? ` and ${wider.length - 12} more` : ""));
      }
    }
    if (!legal.length) {
      const why = state.status === "finished" ? "the game is over." : "the table waits for another player.";
      nodes.push(el("span", { class: "muted" }, `None now: ${why}`));
    }
    document.getElementById("moves").replaceChildren(...nodes);
  }

  /* --- table actions (join, bots, start, leave, back) ------------------------------------ */

  function renderActions() {
    const box = document.getElementById("table-actions");
    if (!state || !summary) return;
    const who = me();
    const host = who && summary.host && summary.host.id === who.id;
    const free = summary.seats.filter((s) => !s.player).length;
    const seated = mySeat() !== null;
    // A player of the table, a player who left it included (a bot plays such a seat).
    const played = seated || (who && summary.seats.some((s) => s.player && s.player.id === who.id));
    // The state is the fresher of the two (the summary is read after it): a start hides the
    // form with the state that says so.
    document.getElementById("invite-panel").hidden = !(host && summary.status === "open" && state.status === "open");
    const nodes = [];
    if (summary.status === "open") {
      if (!seated && free) nodes.push(el("button", { type: "button", id: "join", onclick: () => act(() => post(`/tables/${tableId}/join`, {})) }, "Join"));
      if (host && free) {
        const level = el("select", { id: "bot-level", "aria-label": "Bot level" }, ["easy", "random", "hard"].map((l) => el("option", { value: l }, l)));
        nodes.push(el("span", { class: "inline" }, el("label", { for: "bot-level" }, "Bot "), level,
          el("button", { type: "button", id: "add-bot", onclick: () => act(() => post(`/tables/${tableId}/bots`, { level: level.value })) }, "Add bot")));
      }
      if (host && !free) nodes.push(el("button", { type: "button", id: "start", class: "primary", onclick: () => act(() => post(`/tables/${tableId}/start`, {})) }, "Start"));
      if (seated) nodes.push(el("button", { type: "button", id: "leave", class: "secondary", onclick: () => act(() => post(`/tables/${tableId}/leave`, {})) }, "Leave"));
      nodes.push(el("span", { class: "muted" }, summary.invite_only
        ? "Invite only: the players the host invites may join."
        : `Invite link: ${window.location.href}`));
    }
    if (summary.status === "finished") {
      // The old table names its rematch once one is open (its version moves on, so every
      // page watching it learns of it): then everyone is offered the way there.
      if (summary.rematch) {
        nodes.push(el("a", { id: "go-rematch", class: "button", href: `/play/tables/${summary.rematch}/` }, "Go to the rematch"));
      } else if (played) {
        nodes.push(el("button", { type: "button", id: "rematch", class: "primary", onclick: rematch }, "Rematch"));
      }
    }
    if (seated && state.seats[mySeat()].away) {
      nodes.push(el("button", { type: "button", id: "back", class: "primary", onclick: () => act(() => post(`/tables/${tableId}/back`, {})) }, "Take my seat back"));
    }
    box.replaceChildren(...nodes);
  }

  /* A new open table of the same game and options, you its host, the bots seated again and
     the other players invited; a second call (anyone's) answers with the same table. */
  async function rematch(event) {
    showError(null);
    const button = event.currentTarget;
    button.disabled = true;
    try {
      const table = await post(`/tables/${tableId}/rematch`);
      window.location.href = `/play/tables/${table.id}/`;
    } catch (err) {
      button.disabled = false;
      showError(err);
    }
  }

  /* --- the host's invitations ------------------------------------------------------------ */

  /* POST /tables/{id}/invitations {username}. A 400 that names the field (`detail.fields.
     username`: no such user, yourself) is shown at the field; any other error (409 for a
     player already seated or already invited, 400 once the table has started) in the page's
     alert, as every other error. */
  async function invite(event) {
    event.preventDefault();
    const input = document.getElementById("invite-username");
    const fieldError = document.getElementById("invite-username-error");
    const result = document.getElementById("invite-result");
    const username = input.value.trim();
    showError(null);
    fieldError.textContent = "";
    input.removeAttribute("aria-invalid");
    result.textContent = "";
    if (!username) {
      fieldError.textContent = "Enter the username of the player to invite.";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    try {
      const invitation = await post(`/tables/${tableId}/invitations`, { username });
      input.value = "";
      result.textContent = `Invited ${invitation.to ? invitation.to.username : username}: the invitation is in their lobby.`;
    } catch (err) {
      const text = Play.fieldErrors(err, "username");
      if (text) {
        fieldError.textContent = `${username}: ${text}`;
        input.setAttribute("aria-invalid", "true");
        input.focus();
      } else {
        showError(err);
      }
    }
  }

  /* --- Lopti: house rules (L-11.7 machine form), the Rule Vote and its duel ---------------- */

  // The closed vocabulary of L-11.7; the server validates and names the field at fault.
  const EVENTS = ["round_start", "turn_start", "play", "clear", "take_pile", "draw", "face_up_pickup", "face_down_reveal", "go_out"];
  const EFFECTS = ["draw", "skip_next_turn", "reverse_direction", "clear_pile", "give_card", "return_cleared", "reveal_hand", "announce"];
  const TARGETS = ["", "actor", "next_player", "previous_player", "all_other_players", "all_players", "most_cards", "fewest_cards", "last_round_winner"];
  const CAUSES = ["ten", "four_of_a_kind", "four_threes", "house_rule"];

  const select = (id, name, values, label) => el("div", { class: "option" }, el("label", { for: id }, label),
    el("select", { id, name }, values.map((v) => el("option", { value: v }, v || "—"))));
  const number = (id, name, label, attrs) => el("div", { class: "option" }, el("label", { for: id }, label),
    el("input", { id, name, type: "number", ...attrs }));

  function houseRuleForm() {
    const effects = [0, 1, 2].map((i) => el("fieldset", { class: "effect" }, el("legend", {}, `Effect ${i + 1}${i ? " (optional)" : ""}`),
      select(`hr-effect-${i}`, `effect-${i}`, i ? ["", ...EFFECTS] : EFFECTS, "effect"),
      select(`hr-target-${i}`, `target-${i}`, TARGETS, "target"),
      number(`hr-count-${i}`, `count-${i}`, "count (draw, return_cleared)", { min: 1, max: 3 }),
      select(`hr-which-${i}`, `which-${i}`, ["", "lowest", "highest"], "which (give_card)")));
    const form = el("form", { id: "house-rule-form", class: "form" },
      el("h3", {}, "You won the round: write a house rule (L-11)"),
      el("label", { for: "hr-description" }, "Description (shown to the table)"),
      el("textarea", { id: "hr-description", name: "description", maxlength: 280, required: true, rows: 2 }),
      el("fieldset", {}, el("legend", {}, "When"),
        select("hr-event", "event", EVENTS, "event"),
        select("hr-timing", "timing", ["after", "before"], "timing"),
        el("div", { class: "option" }, el("label", { for: "hr-ranks" }, "ranks (play; comma-separated, e.g. A,K)"), el("input", { id: "hr-ranks", name: "ranks" })),
        number("hr-min", "min_cards", "min cards (play)", { min: 1 }),
        number("hr-max", "max_cards", "max cards (play)", { min: 1 }),
        select("hr-source", "source", ["", "hand", "face_down"], "source (play)"),
        el("div", { class: "option" }, el("span", {}, "causes (clear)"), CAUSES.map((c) => el("label", { class: "check" }, el("input", { type: "checkbox", name: "causes", value: c }), ` ${c}`))),
        select("hr-legal", "legal", ["", "true", "false"], "legal (face_down_reveal)")),
      el("fieldset", {}, el("legend", {}, "If (all optional)"),
        select("hr-phase", "actor_phase", ["", "hand", "face_down"], "actor phase"),
        number("hr-pile", "pile_at_least", "pile at least", { min: 0 }),
        select("hr-drawempty", "draw_pile_empty", ["", "true", "false"], "draw pile empty"),
        number("hr-handmax", "actor_hand_at_most", "actor hand at most", { min: 0 })),
      ...effects,
      el("div", { class: "buttons" },
        el("button", { type: "submit", id: "write-rule", class: "primary" }, "Write the rule"),
        el("button", { type: "button", id: "decline-rule", class: "secondary", onclick: () => send({ type: "decline_rule" }) }, "Decline")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(() => post(`/tables/${tableId}/house-rules`, { rule: readRule(form) }));
    });
    return form;
  }

  function readRule(form) {
    const v = (name) => form.elements[name].value.trim();
    const when = { event: v("event"), timing: v("timing") };
    if (v("ranks")) when.ranks = v("ranks").split(",").map((r) => r.trim().toUpperCase()).filter(Boolean);
    if (v("min_cards")) when.min_cards = Number(v("min_cards"));
    if (v("max_cards")) when.max_cards = Number(v("max_cards"));
    if (v("source")) when.source = v("source");
    const causes = [...form.querySelectorAll("input[name=causes]:checked")].map((c) => c.value);
    if (causes.length) when.causes = causes;
    if (v("legal")) when.legal = v("legal") === "true";
    const cond = {};
    if (v("actor_phase")) cond.actor_phase = v("actor_phase");
    if (v("pile_at_least")) cond.pile_at_least = Number(v("pile_at_least"));
    if (v("draw_pile_empty")) cond.draw_pile_empty = v("draw_pile_empty") === "true";
    if (v("actor_hand_at_most")) cond.actor_hand_at_most = Number(v("actor_hand_at_most"));
    const then = [];
    for (const i of [0, 1, 2]) {
      if (!v(`effect-${i}`)) continue;
      const effect = { effect: v(`effect-${i}`) };
      if (v(`target-${i}`)) effect.target = v(`target-${i}`);
      if (v(`count-${i}`)) effect.count = Number(v(`count-${i}`));
      if (v(`which-${i}`)) effect.which = v(`which-${i}`);
      then.push(effect);
    }
    const rule = { description: v("description"), when, then };
    if (Object.keys(cond).length) rule.if = cond;
    return rule;
  }

  function voteBox(vote, legal) {
    const t = vote.tally || {};
    const target = vote.kind === "base_rule" ? `${vote.key} = ${JSON.stringify(vote.value)}` : `rule #${vote.rule_id}`;
    const ballots = legal.filter((m) => ["ballot", "abstain", "champion", "no_champion"].includes(m.type));
    return el("div", { id: "vote", class: "box" },
      el("h3", {}, `Rule Vote #${vote.id}: ${vote.kind} ${target}`),
      el("p", {}, `Proposed by ${seatName(vote.proposer)}, applies ${vote.applies}. Status ${vote.status}, stage ${vote.stage}.`),
      el("p", {}, `Yes ${t.yes ?? "?"} · no ${t.no ?? "?"} · abstain ${t.abstain ?? "?"} · members ${t.members ?? "?"}`),
      vote.result ? el("p", {}, `Result: ${vote.result}${vote.reason ? ` (${vote.reason})` : ""}`) : null,
      ballots.length ? el("div", { class: "buttons", role: "group", "aria-label": "Your ballot" }, ballots.map((m) => moveButton(m))) : null);
  }

  function duelBox(duel, legal) {
    const throws = legal.filter((m) => m.type === "throw");
    const [a, b] = duel.players;
    return el("div", { id: "duel", class: "box" },
      el("h3", {}, `Rock-paper-scissors ${duel.kind}: ${seatName(a)} vs ${seatName(b)}`),
      el("p", {}, `Score ${duel.score[0]}–${duel.score[1]} (first to ${duel.first_to}) · ${duel.status}${duel.winner !== null && duel.winner !== undefined ? ` · winner ${seatName(duel.winner)}` : ""}`),
      duel.waiting.length ? el("p", {}, `Waiting for ${duel.waiting.map(seatName).join(", ")}`) : null,
      // Your own pending throw only; the other's stays hidden until both threw (L-12.4).
      state.you && state.you.throw ? el("p", {}, `You threw ${state.you.throw.throw}.`) : null,
      el("ol", { class: "throws" }, duel.throws.map((t) => el("li", {}, t.throws.join(" vs ")))),
      throws.length ? el("div", { class: "buttons", role: "group", "aria-label": "Your throw" }, throws.map((m) => moveButton(m))) : null);
  }

  function proposeForm(pub) {
    const form = el("form", { class: "form" },
      select("pv-kind", "kind", ["remove", "modify", "restore", "base_rule"], "kind"),
      number("pv-rule", "rule_id", "rule id (remove, modify, restore)", { min: 1 }),
      select("pv-key", "key", ["", ...Object.keys(pub.rules || {})], "base rule (base_rule)"),
      el("div", { class: "option" }, el("label", { for: "pv-value" }, "new value (base_rule, JSON: 4, true, \"refill\")"), el("input", { id: "pv-value", name: "value" })),
      select("pv-applies", "applies", ["now", "next_round"], "applies"),
      el("div", { class: "buttons" }, el("button", { type: "submit", id: "propose" }, "Propose")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const f = form.elements;
      const body = { kind: f.kind.value, applies: f.applies.value };
      if (f.rule_id.value) body.rule_id = Number(f.rule_id.value);
      if (f.key.value) body.key = f.key.value;
      if (f.value.value.trim()) {
        try {
          body.value = JSON.parse(f.value.value);
        } catch (err) {
          body.value = f.value.value.trim(); // a bare word such as refill
        }
      }
      act(() => post(`/tables/${tableId}/rule-votes`, body));
    });
    // Folded away: most turns are not about votes, and a phone screen is short.
    return el("details", { id: "propose-form" }, el("summary", {}, "Propose a Rule Vote (one per round, L-12.1)"), form);
  }

  /* Shows `make()`'s element in `slot` while `wanted`, and leaves an element already shown
     untouched: a form being filled in keeps its values and its focus across updates. */
  function keepIn(slot, wanted, make) {
    const box = document.getElementById(slot);
    if (!wanted) box.replaceChildren();
    else if (!box.firstElementChild) box.append(make());
  }

  function renderLopti() {
    const panel = document.getElementById("lopti-panel");
    panel.hidden = state.game !== "lopti" || state.status === "open";
    if (panel.hidden) return;
    const pub = state.public;
    const legal = state.legal_moves || [];
    const rules = pub.house_rules || [];
    document.getElementById("lopti-rules").replaceChildren(rules.length
      ? el("ul", { id: "house-rules" }, rules.map((r) => el("li", {}, `#${r.id} by ${seatName(r.author)} (${r.status}): ${r.rule.description}`,
        r.author === mySeat() && r.status === "active"
          ? el("button", { type: "button", class: "secondary", onclick: () => act(() => del(`/tables/${tableId}/house-rules/${r.id}`)) }, `Delete rule #${r.id}`)
          : null)))
      : el("p", { class: "muted" }, "No house rules in this session."));
    // The form is offered exactly when the server lists the winner's decision.
    keepIn("lopti-write", legal.some((m) => m.type === "decline_rule"), houseRuleForm);
    document.getElementById("lopti-vote").replaceChildren(...[
      pub.vote ? voteBox(pub.vote, legal) : null,
      pub.duel ? duelBox(pub.duel, legal) : null,
    ].filter(Boolean));
    const mayPropose = state.you && state.status === "active" && !pub.vote_used && !pub.vote && !(pub.window && pub.window.open);
    keepIn("lopti-propose", mayPropose, () => proposeForm(pub));
  }

  /* --- start ----------------------------------------------------------------------------- */

  document.addEventListener("DOMContentLoaded", () => {
    if (!Play.token()) {
      window.location.href = "/play/";
      return;
    }
    document.getElementById("invite-form").addEventListener("submit", invite);
    watcher = Play.watchState(tableId, applyState, showError);
    setInterval(renderDeadline, 1000);
  });
})();
