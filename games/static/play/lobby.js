/* The lobby: log in or register, your tables and the open ones, and the new-table form,
   whose option fields are built from the catalogue (GET /games), so a game's new option
   appears here without a change to the client. */
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

  async function loadTables() {
    const [mine, open] = await Promise.all([get("/me/tables"), get("/tables?status=open")]);
    fillList("my-tables", Array.isArray(mine) ? mine : mine.results || [], "No tables yet.");
    fillList("open-tables", Array.isArray(open) ? open : open.results || [], "No open tables.");
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
    await loadTables();
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
    document.getElementById("refresh").addEventListener("click", guard(loadTables));
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
