/* The web client's only door to the server: the public API under /api/v1 with the token
   from /auth/register or /auth/token, kept in localStorage. No game rule lives here: the
   pages show what the API says and send the moves it lists. See docs/web-client.md. */
"use strict";

const Play = (() => {
  const TOKEN_KEY = "cardgames.token";
  const USER_KEY = "cardgames.user";
  const BASE = "/api/v1";

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || `HTTP ${status}`);
      this.status = status;
      this.code = body && body.code;
      this.detail = body && body.detail;
    }
  }

  const token = () => localStorage.getItem(TOKEN_KEY);
  const user = () => JSON.parse(localStorage.getItem(USER_KEY) || "null");

  function signIn(key, who) {
    localStorage.setItem(TOKEN_KEY, key);
    localStorage.setItem(USER_KEY, JSON.stringify(who));
  }

  function signOut() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
  }

  function headers(extra) {
    const h = { Accept: "application/json", ...extra };
    if (token()) h.Authorization = `Token ${token()}`;
    return h;
  }

  function newKey() {
    // crypto.randomUUID needs a secure context; a phone on the LAN over http has none.
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  }

  /* One API call. Resolves to the parsed body (null for an empty one); rejects with an
     ApiError carrying the API's {code, message, detail}. Cookies are never sent, so a
     Django admin session in the same browser does not turn token calls into CSRF-checked
     session calls. Every POST carries an Idempotency-Key, so a client that retries after a
     lost response (a phone changing networks) cannot move twice. */
  async function call(method, path, body) {
    const extra = {};
    if (body !== undefined) extra["Content-Type"] = "application/json";
    if (method === "POST") extra["Idempotency-Key"] = newKey();
    const response = await fetch(BASE + path, {
      method,
      headers: headers(extra),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
    });
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (err) {
      data = { message: `unexpected answer (HTTP ${response.status})` };
    }
    if (!response.ok) {
      if (response.status === 401 && token()) signOut();
      throw new ApiError(response.status, data);
    }
    return data;
  }

  const get = (path) => call("GET", path);
  const post = (path, body) => call("POST", path, body === undefined ? {} : body);
  const del = (path) => call("DELETE", path);

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /* Opens a Server-Sent Events stream of the API with fetch, so that the token goes in the
     Authorization header (an EventSource cannot send one); `lastId` resumes it
     (Last-Event-ID). Rejects with an ApiError when the API refuses it. */
  async function openStream(path, lastId, signal) {
    const h = { Accept: "text/event-stream" };
    if (lastId !== null && lastId !== undefined) h["Last-Event-ID"] = String(lastId);
    const response = await fetch(BASE + path, { headers: headers(h), credentials: "omit", signal });
    if (!response.ok) {
      let data = null;
      try {
        data = await response.json();
      } catch (err) {
        data = { message: `unexpected answer (HTTP ${response.status})` };
      }
      throw new ApiError(response.status, data);
    }
    return response;
  }

  /* Reads an open stream to its end: onEvent({id, event, data}) for every event with data
     (`: ping` comments are skipped). Resolves with the server's reconnection delay (`retry:`)
     when the server ends the stream. */
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let retry = 2000;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return retry;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let id = null;
        let event = "message";
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue; // a ping
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          let text = colon < 0 ? "" : line.slice(colon + 1);
          if (text.startsWith(" ")) text = text.slice(1);
          if (field === "id") id = text;
          else if (field === "event") event = text;
          else if (field === "data") data += (data ? "\n" : "") + text;
          else if (field === "retry") retry = parseInt(text, 10) || retry;
        }
        if (data) onEvent({ id, event, data });
      }
    }
  }

  const canStream = typeof ReadableStream !== "undefined" && typeof TextDecoder !== "undefined";

  /* Follows a table's state: calls onState(state) with every new version and onError(err)
     on failures, until stop(). It reads the push stream (`GET /tables/{id}/events`, SSE,
     api.md "Push") with fetch, so the token goes in the Authorization header (an EventSource
     cannot send one), and resumes with Last-Event-ID after a disconnect. When the stream is
     not available (an old browser, 429 for too many open streams) it falls back to the
     `?wait=` long-poll with If-None-Match (api.md, Polling). */
  function watchState(tableId, onState, onError) {
    const WAIT = 25; // seconds; the API holds a long-poll at most 30
    let etag = null;
    let lastId = null;
    let stopped = false;
    let controller = null;

    function fail(err) {
      onError(err);
      return err.status === 404 || err.status === 401;
    }

    // One connection of the stream; resolves with the server's reconnection delay when the
    // server ends it.
    async function streamOnce() {
      controller = new AbortController();
      const response = await openStream(`/tables/${tableId}/events`, lastId, controller.signal);
      return readEvents(response, ({ id, event, data }) => {
        if (event === "state" && data) {
          lastId = parseInt(id, 10);
          onState(JSON.parse(data));
        }
      });
    }

    async function stream() {
      while (!stopped) {
        const opened = Date.now();
        try {
          const retry = await streamOnce();
          // A stream the server ends at once (a server without streams answers its opening
          // only) is asked again after its reconnection delay; a long one at once.
          if (Date.now() - opened < 5000) await sleep(retry);
        } catch (err) {
          if (stopped) return;
          if (err.name === "AbortError") continue; // refresh(): reconnect at once
          if (err.status === 429) return poll(); // too many open streams: poll instead
          if (fail(err)) return;
          await sleep(2000);
        }
      }
    }

    async function poll() {
      while (!stopped) {
        controller = new AbortController();
        const h = {};
        if (etag) h["If-None-Match"] = etag;
        try {
          const response = await fetch(`${BASE}/tables/${tableId}/state?wait=${etag ? WAIT : 0}`, {
            headers: headers(h),
            credentials: "omit",
            signal: controller.signal,
          });
          if (response.status === 304) continue; // nothing changed during the wait
          const data = await response.json();
          if (!response.ok) throw new ApiError(response.status, data);
          etag = response.headers.get("ETag");
          onState(data);
        } catch (err) {
          if (stopped) return;
          if (err.name === "AbortError") continue; // refresh(): ask again at once
          if (fail(err)) return;
          await sleep(2000);
        }
      }
    }

    if (canStream) stream();
    else poll();
    return {
      stop() {
        stopped = true;
        if (controller) controller.abort();
      },
      // Ends the current wait or stream and asks again (after our own move, whose state we
      // already have, the next answer comes at once since the version moved on).
      refresh() {
        if (controller) controller.abort();
      },
    };
  }

  /* Follows the signed-in user's account stream (`GET /stream/events`, SSE, api.md "Account
     stream": `invited`, `rematch_offered`, `your_turn`, `table_finished`, ...): calls
     onEvent(type, body) for each event and onFresh() each time a stream starts from now
     (the first connection, or one that could not resume), so the caller reloads what it
     shows and misses nothing between its last read and the stream's start. Reconnects with
     Last-Event-ID, so events during a disconnect arrive late, not never. Convenience only:
     failures are quiet; when streams are not available (an old browser, 429 for too many
     open streams, 401) it calls onGiveUp(err) and stops, and the caller polls instead.
     Returns {stop()}. */
  function watchAccount(onEvent, onFresh, onGiveUp) {
    let lastId = null;
    let stopped = false;
    let controller = null;

    async function run() {
      let failures = 0;
      while (!stopped) {
        const opened = Date.now();
        try {
          controller = new AbortController();
          const response = await openStream("/stream/events", lastId, controller.signal);
          failures = 0;
          if (lastId === null) onFresh();
          const retry = await readEvents(response, ({ id, event, data }) => {
            if (id !== null) lastId = parseInt(id, 10);
            let body = null;
            try {
              body = JSON.parse(data);
            } catch (err) {
              body = null;
            }
            onEvent(event, body);
          });
          if (Date.now() - opened < 5000) await sleep(retry);
        } catch (err) {
          if (stopped) return;
          if (err.status === 401 || err.status === 403 || err.status === 429) {
            onGiveUp(err);
            return;
          }
          failures += 1; // the network, a restart: ask again, less and less often
          await sleep(Math.min(30000, 2000 * failures));
        }
      }
    }

    if (canStream) run();
    else onGiveUp(null);
    return {
      stop() {
        stopped = true;
        if (controller) controller.abort();
      },
    };
  }

  /* --- presentation helpers shared by the pages --- */

  const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
  const RANKS = { J: "jack", Q: "queen", K: "king", A: "ace" };

  function cardLabel(code) {
    if (code === "RJ") return "red joker";
    if (code === "BJ") return "black joker";
    const rank = code.slice(0, -1);
    const suit = SUITS[code.slice(-1)];
    return `${RANKS[rank] || rank} of ${suit ? suit[1] : code.slice(-1)}`;
  }

  function suitName(suit) {
    return SUITS[suit] ? `${SUITS[suit][0]} ${SUITS[suit][1]}` : suit;
  }

  function cardText(code) {
    if (code === "RJ" || code === "BJ") return `${code[0]}🃏`;
    const suit = SUITS[code.slice(-1)];
    return code.slice(0, -1) + (suit ? suit[0] : code.slice(-1));
  }

  function cardClass(code) {
    const suit = code.slice(-1);
    return suit === "D" || suit === "H" || code === "RJ" ? "card red" : "card black";
  }

  /* A face-up card for reading (not a button). */
  function cardSpan(code) {
    const span = el("span", { class: cardClass(code), title: cardLabel(code) }, cardText(code));
    span.setAttribute("aria-label", cardLabel(code));
    span.dataset.card = code;
    return span;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "onclick") node.addEventListener("click", value);
      else if (key === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /* The API's messages for one field of a 400 (`detail.fields[name]`, a list of strings),
     joined; "" when the error names none for it. */
  function fieldErrors(err, name) {
    const fields = err && err.detail && err.detail.fields;
    const found = fields && fields[name];
    if (!found) return "";
    return (Array.isArray(found) ? found : [found]).map(String).join("; ");
  }

  function showError(err) {
    const box = document.getElementById("error");
    if (!box) return;
    box.textContent = err ? err.message || String(err) : "";
    box.hidden = !err;
  }

  function header() {
    const who = user();
    const whoami = document.getElementById("whoami");
    const logout = document.getElementById("logout");
    whoami.textContent = who ? `Signed in as ${who.username}` : "";
    logout.hidden = !who;
    logout.onclick = () => {
      signOut();
      window.location.href = "/play/";
    };
  }

  document.addEventListener("DOMContentLoaded", header);

  return {
    ApiError, token, user, signIn, signOut, get, post, del, watchState, watchAccount, sleep,
    cardLabel, cardText, cardClass, suitName, cardSpan, el, showError, fieldErrors, header,
  };
})();
