/* The lobby: log in or register, your pending invitations, your tables and the open ones,
   and the new-table form, whose option fields are built from the catalogue (GET /games), so a
   game's new option appears here without a change to the client. The lists follow the
   account stream (GET /stream/events): an invitation appears without a reload. */
"use strict";

(() => {
  const { el, get, post, showError } = Play;
  let catalogue = [];

  async function authenticate(action, username, password) {
    if (action === "register") {
      const made = await post("/auth/register", { username, password });
      Play.signIn(made.token, { id: made.id, username: made.username, is_staff: false });
    } else {
      const { token } = await post("/auth/token", { username, password });
      Play.signIn(token, null);
      const me = await get("/me");
      Play.signIn(token, { id: me.id, username: me.username, is_staff: me.is_staff });
    }
  }

  function tableItem(table) {
    const seated = table.seats.filter((s) => s.player).length;
    const turn = table.your_turn ? " · your turn" : "";
    return el(
      "li",
      {},
      el(
        "a",
        { href: `/play/tables/${table.id}/` },
        `${table.game} · ${table.status} · ${seated}/${table.seats.length} seats · host ${table.host ? table.host.username : "—"}${turn}`,
      ),
    );
  }

  function fillList(id, tables, empty) {
    const list = document.getElementById(id);
    list.replaceChildren(...(tables.length ? tables.map(tableItem) : [el("li", { class: "muted" }, empty)]));
  }

  /* One pending invitation: what the API says of it (game, who invited, the table's id and
     status; never anything of the table's state), Accept while the table is open, Decline. */
  function invitationItem(inv) {
    const from = inv.by ? inv.by.username : "—";
    const what = `${inv.game}${inv.rematch ? " rematch" : ""} from ${from}`;
    const buttons = [];
    if (inv.table_status === "open") {
      buttons.push(el("button", {
        type: "button", class: "accept", "aria-label": `Accept the invitation to ${what}`,
        onclick: guard(() => acceptInvitation(inv)),
      }, "Accept"));
    }
    buttons.push(el("button", {
      type: "button", class: "secondary decline", "aria-label": `Decline the invitation to ${what}`,
      onclick: guard(() => declineInvitation(inv, what)),
    }, "Decline"));
    return el(
      "li",
      { dataset: { invitation: inv.id } },
      el("a", { href: `/play/tables/${inv.table}/` },
        `${what} · table ${inv.table.slice(0, 8)} · ${inv.table_status}`),
      inv.table_status === "open" ? null : el("span", { class: "muted" }, " (the table has started: it can no longer be joined)"),
      el("div", { class: "buttons" }, buttons),
    );
  }

  function fillInvitations(invitations) {
    const pending = invitations.filter((inv) => inv.status === "pending");
    document.getElementById("invitations").replaceChildren(
      ...(pending.length ? pending.map(invitationItem) : [el("li", { class: "muted" }, "No invitations.")]),
    );
    // A count, read out by screen readers when it changes (role=status).
    const note = document.getElementById("invitations-note");
    const text = pending.length ? `${pending.length} pending invitation${pending.length === 1 ? "" : "s"}` : "";
    if (note.textContent !== text) note.textContent = text;
  }

  async function acceptInvitation(inv) {
    // Seats the caller as a join does (409 when the table is full or has started).
    await post(`/me/invitations/${inv.id}/accept`);
    window.location.href = `/play/tables/${inv.table}/`;
  }

  async function declineInvitation(inv, what) {
    await post(`/me/invitations/${inv.id}/decline`);
    await refresh();
    document.getElementById("invitations-note").textContent = `Declined the invitation to ${what}.`;
  }

  const listOf = (answer) => (Array.isArray(answer) ? answer : answer.results || []);

  async function loadTables() {
    const [mine, open, invitations] = await Promise.all([
      get("/me/tables"), get("/tables?status=open"), get("/me/invitations?status=pending"),
    ]);
    fillList("my-tables", listOf(mine), "No tables yet.");
    fillList("open-tables", listOf(open), "No open tables.");
    fillInvitations(listOf(invitations));
  }

  /* loadTables, one at a time: a reason to reload that arrives during a load makes it load
     once more (events come in bursts: an invitation, then its rematch offer). */
  let loading = null;
  let loadAgain = false;
  function refresh() {
    if (loading) {
      loadAgain = true;
      return loading;
    }
    loading = (async () => {
      try {
        do {
          loadAgain = false;
          await loadTables();
        } while (loadAgain);
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  /* Background reloads (the stream, polling) show a failure but do not clear an error the
     user is reading. */
  const quietly = () => refresh().catch(showError);

  /* Every account event may change a list (an invitation, a table started or finished, your
     turn), so any of them reloads; the stream's (re)start too. Without a stream, the lists
     reload every 30 s and when the page comes back into view. */
  let follower = null;
  function follow() {
    if (follower) return;
    follower = Play.watchAccount(quietly, quietly, () => {
      setInterval(() => document.visibilityState === "visible" && quietly(), 30000);
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") quietly();
    });
  }

  /* One input per catalogue option: bool → checkbox, choice → select, int/number → number
     input with the catalogue's bounds. The description is the field's help text. */
  function optionField(name, spec) {
    const id = `opt-${name}`;
    const help = el("small", { id: `${id}-help`, class: "help" }, spec.description || "");
    let input;
    if (spec.type === "bool") {
      input = el("input", { id, name, type: "checkbox", "aria-describedby": `${id}-help` });
      input.checked = Boolean(spec.default);
      return el("div", { class: "option" }, el("label", { class: "check", for: id }, input, ` ${name}`), help);
    }
    if (spec.choices) {
      input = el(
        "select",
        { id, name, "aria-describedby": `${id}-help` },
        spec.choices.map((choice) => el("option", { value: JSON.stringify(choice), selected: choice === spec.default }, String(choice))),
      );
    } else {
      input = el("input", {
        id, name, type: "number", "aria-describedby": `${id}-help`,
        min: spec.minimum, max: spec.maximum, step: spec.type === "int" ? 1 : "any",
        placeholder: spec.nullable ? "not set" : "",
      });
      if (spec.default !== null && spec.default !== undefined) input.value = spec.default;
    }
    input.dataset.type = spec.type;
    return el("div", { class: "option" }, el("label", { for: id }, name), input, help);
  }

  function renderOptions() {
    const game = catalogue.find((g) => g.slug === document.getElementById("create-game").value);
    const seats = document.getElementById("create-seats");
    seats.min = game.min_players;
    seats.max = game.max_players;
    seats.value = game.min_players;
    const box = document.getElementById("create-options");
    box.replaceChildren(
      el("legend", {}, `${game.name} options`),
      ...Object.entries(game.options).map(([name, spec]) => optionField(name, spec)),
    );
  }

  function readOptions() {
    const options = {};
    for (const input of document.querySelectorAll("#create-options input, #create-options select")) {
      if (input.type === "checkbox") options[input.name] = input.checked;
      else if (input.tagName === "SELECT") options[input.name] = JSON.parse(input.value);
      else if (input.value === "") options[input.name] = null;
      else options[input.name] = Number(input.value);
    }
    return options;
  }

  async function createTable(event) {
    event.preventDefault();
    const body = {
      game: document.getElementById("create-game").value,
      seats: Number(document.getElementById("create-seats").value),
      turn_timeout: Number(document.getElementById("create-timeout").value),
      private: document.getElementById("create-private").checked,
      invite_only: document.getElementById("create-invite-only").checked,
      options: readOptions(),
    };
    // Staff only (the API answers 403 otherwise): support, teaching, duplicate tournaments.
    const seed = document.getElementById("create-seed").value;
    if (seed !== "") body.seed = Number(seed);
    const table = await post("/tables", body);
    window.location.href = `/play/tables/${table.id}/`;
  }

  function showAuth() {
    document.getElementById("lobby").hidden = true;
    document.getElementById("auth").hidden = false;
    Play.header();
  }

  async function showLobby() {
    document.getElementById("auth").hidden = true;
    document.getElementById("lobby").hidden = false;
    Play.header();
    const who = Play.user();
    document.getElementById("staff-fields").hidden = !(who && who.is_staff);
    catalogue = await get("/games");
    const select = document.getElementById("create-game");
    select.replaceChildren(...catalogue.map((g) => el("option", { value: g.slug }, g.name)));
    select.onchange = renderOptions;
    renderOptions();
    await refresh();
    follow();
  }

  function guard(fn) {
    return async (...args) => {
      showError(null);
      try {
        await fn(...args);
      } catch (err) {
        showError(err);
      }
    };
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("auth-form").addEventListener(
      "submit",
      guard(async (event) => {
        event.preventDefault();
        const form = event.target;
        const action = event.submitter ? event.submitter.value : "login";
        await authenticate(action, form.username.value, form.password.value);
        await showLobby();
      }),
    );
    document.getElementById("create-form").addEventListener("submit", guard(createTable));
    document.getElementById("refresh").addEventListener("click", guard(refresh));
    if (Play.token()) {
      guard(async () => {
        try {
          await showLobby();
        } catch (err) {
          if (err.status === 401) showAuth(); // the token was reset or the user deactivated
          throw err;
        }
      })();
    }
    else showAuth();
  });
})();
