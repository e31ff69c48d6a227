// mneme viewer: theme switch, live feed, sessions and session pages over
// SSE, "load more", and the status banner kept current from /api/health.
// Live rows are HTML fragments rendered on the server by the same templ
// component as the page (GET /fragments/event/:id); nothing is templated
// here. No inline scripts: the CSP allows only this file.
(function () {
  "use strict";

  // ---- Theme: system → light → dark → system, kept in localStorage. ----
  var THEMES = ["system", "light", "dark"];
  function currentTheme() {
    var t = document.documentElement.getAttribute("data-theme");
    return t === "light" || t === "dark" ? t : "system";
  }
  function applyTheme(t) {
    var root = document.documentElement;
    if (t === "system") {
      root.removeAttribute("data-theme");
    } else {
      root.setAttribute("data-theme", t);
    }
    try {
      if (t === "system") localStorage.removeItem("mneme-theme");
      else localStorage.setItem("mneme-theme", t);
    } catch (e) { /* storage disabled */ }
    var btn = document.getElementById("theme-toggle");
    if (btn) {
      btn.setAttribute("data-theme-choice", t);
      btn.title = t === "system" ? "Theme: follow the system" : "Theme: " + t;
    }
  }

  // ---- Live connection indicator. ----
  // downTimer shows the worker-down banner once the stream has been
  // offline for downAfter ms: a worker restarting (settings, an upgrade)
  // comes back before that.
  var downTimer = null;
  var downAfter = 4000;
  function workerDown(down) {
    var b = document.getElementById("worker-down");
    if (!b) return;
    if (!down) {
      clearTimeout(downTimer);
      downTimer = null;
      b.hidden = true;
      return;
    }
    if (downTimer === null && b.hidden) {
      downTimer = setTimeout(function () { b.hidden = false; }, downAfter);
    }
  }

  function setLive(state, label) {
    if (state === "live") workerDown(false);
    if (state === "offline") workerDown(true);
    var el = document.getElementById("live");
    if (!el) return;
    el.setAttribute("data-state", state);
    // One meaning on every page that shows it: this page updates itself.
    el.title = state === "live" ? "Live: this page updates by itself as Claude Code works"
      : "Not connected: this page catches up once the worker answers";
    var l = el.querySelector(".live-label");
    if (l) l.textContent = label || state;
  }

  // insertRows parses server-rendered HTML and returns its element nodes.
  function parseRows(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    return Array.prototype.filter.call(tpl.content.childNodes, function (n) {
      return n.nodeType === 1;
    });
  }

  // dropRows removes the rows a forgotten event names, wherever they are
  // on the page; a rebuilt summary's new version follows as a summary event.
  function dropRows(d) {
    var byId = { observations: "obs-", prompts: "prompt-", summaries: "summary-", rebuilt: "summary-" };
    Object.keys(byId).forEach(function (k) {
      (d[k] || []).forEach(function (id) {
        var el = document.getElementById(byId[k] + id);
        if (el) el.remove();
      });
    });
    (d.sessions || []).forEach(function (id) {
      document.querySelectorAll('[data-session="' + Number(id) + '"]').forEach(function (el) { el.remove(); });
    });
  }

  // openStream listens to /stream (of project, or all) for the event
  // kinds in listeners, resuming after lastId() when it reconnects, and
  // keeps the live indicator current. It closes when the page goes away.
  function openStream(lastId, project, listeners) {
    var es = null;
    var retry = 1000;
    var timer = null;
    function connect() {
      clearTimeout(timer);
      setLive("connecting", "connecting");
      es = new EventSource("/stream?lastEventId=" + lastId() + (project ? "&project=" + encodeURIComponent(project) : ""));
      es.onopen = function () {
        retry = 1000;
        setLive("live", "live");
      };
      Object.keys(listeners).forEach(function (k) { es.addEventListener(k, listeners[k]); });
      es.onerror = function () {
        // The browser retries by itself while readyState is CONNECTING; we
        // reconnect ourselves (resuming after lastId) when it gives up.
        if (es.readyState === EventSource.CLOSED) {
          setLive("offline", "offline");
          es.close();
          timer = setTimeout(connect, retry);
          retry = Math.min(retry * 2, 5000); // a local worker: retry often
        } else {
          setLive("offline", "reconnecting");
        }
      };
    }
    connect();
    window.addEventListener("pagehide", function () { if (es) es.close(); });
  }

  // ---- Live feed. ----
  function startFeed(feed) {
    var lastId = parseInt(feed.getAttribute("data-last-event-id") || "0", 10) || 0;
    var query = feed.getAttribute("data-query") || "";
    var project = feed.getAttribute("data-project") || "";
    var queue = Promise.resolve();

    function fragmentURL(id) {
      return "/fragments/event/" + id + (query ? "?" + query : "");
    }

    // rowTime is a row's time as its ISO datetime ("" when it has none);
    // ISO times in UTC sort as strings.
    function rowTime(row) {
      var t = row.querySelector(".row-time");
      return t ? t.getAttribute("datetime") || "" : "";
    }

    // placeRow puts a live row where the feed's order (newest first, by
    // the time of what it shows) wants it: today's work at the top, an
    // imported turn of last week among its own. A row older than every
    // row shown waits for "load more" when more follow.
    function placeRow(row) {
      var t = rowTime(row);
      var rows = feed.children;
      for (var i = 0; i < rows.length; i++) {
        if (rowTime(rows[i]) <= t) {
          feed.insertBefore(row, rows[i]);
          return;
        }
      }
      if (!document.querySelector("#load-more a")) feed.appendChild(row);
    }

    // Fetch and place one event's row; rows arrive in event order because
    // the fetches are chained.
    function addEvent(id) {
      queue = queue.then(function () {
        return fetch(fragmentURL(id), { headers: { Accept: "text/html" } })
          .then(function (r) { return r.status === 200 ? r.text() : ""; })
          .then(function (html) {
            if (!html) return;
            parseRows(html).forEach(function (row) {
              if (row.id && document.getElementById(row.id)) return; // replayed
              row.classList.add("row-new");
              placeRow(row);
            });
            var empty = document.getElementById("feed-empty");
            if (empty) empty.remove();
          })
          .catch(function () { /* a missed row reappears on reload */ });
      });
    }

    // A forgotten event lists rows deleted for good: drop them (after the
    // rows being fetched, so none comes back). Whole sessions go by their
    // data-session attribute.
    function onForgotten(e) {
      var id = parseInt(e.lastEventId, 10);
      if (id && id > lastId) lastId = id;
      var d;
      try { d = JSON.parse(e.data); } catch (err) { return; }
      queue = queue.then(function () { dropRows(d); });
    }

    function onEvent(e) {
      var id = parseInt(e.lastEventId, 10);
      if (!id || id <= lastId) return;
      lastId = id;
      addEvent(id);
    }

    var listeners = { forgotten: onForgotten };
    ["session_started", "prompt", "observation", "summary", "session_completed"].forEach(function (k) {
      listeners[k] = onEvent;
    });
    openStream(function () { return lastId; }, project, listeners);
  }

  // ---- Live Memory page: rows appear and change from memory events. ----
  // Each memory event names a memory (its data is the memory as JSON);
  // its row is fetched from /fragments/memory/:id (the page's component),
  // replaces the row in place or goes to the top of its kind's list; a
  // 204 (no longer in the page's state) drops it.
  function fillCSRF(root) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (!meta) return;
    root.querySelectorAll('input[name="_csrf"]').forEach(function (i) {
      if (!i.value) i.value = meta.getAttribute("content");
    });
    // A live row's actions come back to this page (its project, state
    // and pages), as the rows rendered with the page do.
    root.querySelectorAll('input[name="next"]').forEach(function (i) {
      if (!i.value) i.value = location.pathname + location.search;
    });
  }

  // ---- A memory's editor: Edit opens it in place of the text, Cancel
  // puts the text back, both without a reload (without JavaScript they
  // are links: ?edit=ID opens the editor, Cancel goes back). Delegated,
  // so that rows arriving live have it too.
  function memoryEditor() {
    function toggle(row, open) {
      var form = row.querySelector(".mem-edit-form");
      var text = row.querySelector(".memory-text");
      var edit = row.querySelector(".mem-edit-open");
      if (!form) return;
      form.hidden = !open;
      if (text) text.hidden = open;
      if (edit) edit.setAttribute("aria-expanded", open ? "true" : "false");
      var area = form.querySelector("textarea");
      if (open && area) {
        area.focus();
      } else {
        if (area) area.value = area.defaultValue;
        if (edit) edit.focus();
        // Opened by ?edit=: the address no longer says so.
        if (/[?&]edit=/.test(location.search)) {
          var a = form.querySelector(".mem-edit-cancel");
          if (a) history.replaceState(null, "", a.getAttribute("href"));
        }
      }
    }
    document.addEventListener("click", function (e) {
      var t = e.target.closest ? e.target.closest(".mem-edit-open, .mem-edit-cancel") : null;
      if (!t || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      var row = t.closest(".memory-row");
      if (!row) return;
      e.preventDefault();
      toggle(row, t.classList.contains("mem-edit-open"));
    });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape" || !e.target.closest) return;
      var form = e.target.closest(".mem-edit-form");
      if (form) toggle(form.closest(".memory-row"), false);
    });
  }

  function startMemory(box) {
    var lastId = parseInt(box.getAttribute("data-last-event-id") || "0", 10) || 0;
    var project = box.getAttribute("data-project") || "";
    var state = box.getAttribute("data-state") || "current";
    var queue = Promise.resolve();

    function place(memId, html) {
      var old = document.getElementById("mem-" + memId);
      if (!html) {
        if (old) old.remove();
        recount();
        return;
      }
      parseRows(html).forEach(function (row) {
        fillCSRF(row);
        row.classList.add("row-new");
        if (old && old.querySelector(".mem-edit-form:not([hidden])")) {
          return; // being edited: its save reloads the page anyway
        }
        if (old) {
          old.replaceWith(row);
          return;
        }
        var list = document.getElementById("mem-list-" + row.getAttribute("data-kind"));
        if (list) list.insertBefore(row, list.firstChild);
      });
      recount();
    }

    // recount keeps each kind's heading count, and its jump link's, in
    // step with its rows: the rows shown, and those on the kind's other
    // pages (data-hidden).
    function recount() {
      box.querySelectorAll(".memory-group").forEach(function (g) {
        var n = g.querySelector(".count");
        var hidden = parseInt(g.getAttribute("data-hidden") || "0", 10) || 0;
        var count = String(hidden + g.querySelectorAll(".memory-row").length);
        if (n) n.textContent = count;
        var jump = box.querySelector('.mem-jump a[href="#' + g.id + '"] .count');
        if (jump) jump.textContent = count;
      });
    }

    function onMemory(e) {
      var id = parseInt(e.lastEventId, 10);
      if (!id || id <= lastId) return;
      lastId = id;
      var m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (!m || !m.id || (project && m.project !== project)) return;
      queue = queue.then(function () {
        return fetch("/fragments/memory/" + Number(m.id) + "?state=" + encodeURIComponent(state), { headers: { Accept: "text/html" } })
          .then(function (r) { return r.status === 200 ? r.text() : (r.status === 204 || r.status === 404 ? "" : null); })
          .then(function (html) { if (html !== null) place(m.id, html); })
          .catch(function () { /* a missed change shows on reload */ });
      });
    }

    function onForgotten(e) {
      var id = parseInt(e.lastEventId, 10);
      if (id && id > lastId) lastId = id;
      var d;
      try { d = JSON.parse(e.data); } catch (err) { return; }
      queue = queue.then(function () {
        (d.memories || []).forEach(function (mid) { place(mid, ""); });
      });
    }

    openStream(function () { return lastId; }, project, { memory: onMemory, forgotten: onForgotten });
  }

  // ---- Live sessions: a session's page and the session list. ----
  // They follow the stream as the feed does (openStream, the same
  // fragments rendered by the pages' own components): every event of a
  // session names it in its data (sessionId).
  var SESSION_EVENTS = ["session_started", "prompt", "observation", "summary", "session_completed", "memory"];

  function eventSession(e) {
    try {
      var d = JSON.parse(e.data);
      return d && d.sessionId ? Number(d.sessionId) : 0;
    } catch (err) { return 0; }
  }

  // fetchHTML gets a fragment: its HTML, "" when there is none for this
  // page (204, or 404 once it is gone), null when it failed.
  function fetchHTML(url) {
    return fetch(url, { headers: { Accept: "text/html" } })
      .then(function (r) { return r.status === 200 ? r.text() : (r.status === 204 || r.status === 404 ? "" : null); })
      .catch(function () { return null; });
  }

  // follow opens the stream for box (its data-last-event-id and
  // data-project), calling onEvent(e, id, session) once for each new
  // event of SESSION_EVENTS and dropping forgotten rows; work is chained
  // on the returned queue so that changes land in event order.
  function follow(box, onEvent, onForgotten) {
    var lastId = parseInt(box.getAttribute("data-last-event-id") || "0", 10) || 0;
    var q = { chain: Promise.resolve() };
    q.add = function (f) { q.chain = q.chain.then(f).catch(function () { /* shows on reload */ }); };
    var listeners = {
      forgotten: function (e) {
        var id = parseInt(e.lastEventId, 10);
        if (id && id > lastId) lastId = id;
        var d;
        try { d = JSON.parse(e.data); } catch (err) { return; }
        q.add(function () { dropRows(d); if (onForgotten) onForgotten(d); });
      }
    };
    SESSION_EVENTS.forEach(function (k) {
      listeners[k] = function (e) {
        var id = parseInt(e.lastEventId, 10);
        if (!id || id <= lastId) return;
        lastId = id;
        var session = eventSession(e);
        if (session) onEvent(e, id, session);
      };
    });
    openStream(function () { return lastId; }, box.getAttribute("data-project") || "", listeners);
    return q;
  }

  // startSession keeps a session's page current: new rows go into their
  // turn (or a new turn, in prompt order), and the head (status, counts)
  // and the story are rendered anew after each change.
  function startSession(box) {
    var session = Number(box.getAttribute("data-session-page"));
    var timeline = document.getElementById("timeline");
    var headDue = false;
    var q;

    // placeTurn merges a turn holding new rows into the timeline.
    function placeTurn(sec) {
      if (!sec.classList.contains("turn")) return;
      var empty = document.getElementById("timeline-empty");
      if (empty) empty.remove();
      var n = Number(sec.getAttribute("data-turn"));
      var have = document.getElementById("turn-" + n);
      if (!have) {
        sec.querySelectorAll(".row").forEach(function (r) { r.classList.add("row-new"); });
        var after = Array.prototype.find.call(timeline.children, function (el) {
          return !el.classList.contains("turn") || Number(el.getAttribute("data-turn")) > n;
        });
        timeline.insertBefore(sec, after || null);
        return;
      }
      if (sec.classList.contains("turn-fail")) have.classList.add("turn-fail");
      var prompt = sec.querySelector(":scope > .row-prompt");
      if (prompt && !document.getElementById(prompt.id)) {
        prompt.classList.add("row-new");
        var head = have.querySelector(":scope > .turn-head");
        if (head) head.replaceWith(prompt); else have.insertBefore(prompt, have.firstChild);
      }
      var body = have.querySelector(".turn-body");
      sec.querySelectorAll(".turn-body > .row").forEach(function (row) {
        if (row.id && document.getElementById(row.id)) return; // replayed
        row.classList.add("row-new");
        // Tool calls before the turn's summaries, in arrival order.
        var sum = row.classList.contains("row-obs") ? body.querySelector(":scope > .row-summary") : null;
        body.insertBefore(row, sum);
      });
    }

    function refreshHead() {
      if (headDue) return;
      headDue = true;
      q.add(function () {
        headDue = false;
        return fetchHTML("/fragments/sessions/" + session + "/head").then(function (html) {
          if (!html) return;
          parseRows(html).forEach(function (part) {
            var old = part.id && document.getElementById(part.id);
            if (old) old.replaceWith(part);
          });
        });
      });
    }

    q = follow(box, function (e, id) {
      if (e.type === "prompt" || e.type === "observation" || e.type === "summary") {
        q.add(function () {
          return fetchHTML("/fragments/event/" + id + "?session=" + session).then(function (html) {
            if (html) parseRows(html).forEach(placeTurn);
          });
        });
      }
      refreshHead();
    }, function () { refreshHead(); });
  }

  // startSessions keeps the session list's first page current: a new
  // session's row goes on top, a listed session's row is rendered anew
  // as it goes on (title, counts, status).
  function startSessions(table) {
    var body = document.getElementById("sessions-body");
    var query = table.getAttribute("data-cols") || "";
    ["project", "person"].forEach(function (k) {
      var v = table.getAttribute("data-" + k);
      if (v) query += (query ? "&" : "") + k + "=" + encodeURIComponent(v);
    });
    var due = {};
    var q = follow(table, function (e, id, session) {
      var have = document.getElementById("session-row-" + session);
      if (due[session] || (!have && e.type !== "session_started")) return;
      due[session] = true;
      q.add(function () {
        delete due[session];
        return fetchHTML("/fragments/sessions/" + session + (query ? "?" + query : "")).then(function (html) {
          if (!html) return;
          parseRows(html).forEach(function (row) {
            var old = document.getElementById(row.id);
            if (old) {
              old.replaceWith(row);
              return;
            }
            row.classList.add("row-new");
            body.insertBefore(row, body.firstChild);
            var wrap = document.getElementById("sessions-wrap");
            if (wrap) wrap.classList.remove("hidden");
            var empty = document.getElementById("sessions-empty");
            if (empty) empty.remove();
          });
        });
      });
    });
  }

  // ---- "Load more": append the next page in place. ----
  function onLoadMore(e) {
    var a = e.target.closest("#load-more a[data-fragment]");
    if (!a) return;
    e.preventDefault();
    var feed = document.getElementById("feed");
    a.classList.add("loading");
    fetch(a.getAttribute("data-fragment"), { headers: { Accept: "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error(r.status);
        return r.text();
      })
      .then(function (html) {
        var box = document.getElementById("load-more");
        parseRows(html).forEach(function (n) {
          if (n.id === "load-more") {
            box.replaceWith(n);
          } else if (!(n.id && document.getElementById(n.id))) {
            feed.appendChild(n);
          }
        });
      })
      .catch(function () {
        window.location.href = a.href; // fall back to a full page
      });
  }

  // ---- Status banner: kept current from /api/health on every page. ----
  // The page is rendered with the problem the worker knew of then; this
  // polls /api/health while the page is visible, so the banner appears
  // when the data directory becomes full or read-only and goes away when
  // that is fixed. Every text goes in with textContent.
  // Every 5 s; a test's browser may set window.mnemeHealthEvery (ms)
  // before the page loads, to see the banner change without waiting.
  var HEALTH_EVERY = window.mnemeHealthEvery > 0 ? window.mnemeHealthEvery : 5000;
  var healthFailures = 0;
  var healthTimer = null;

  function setBanner(kind, title, text, boxId) {
    var box = document.getElementById(boxId || "status-banner");
    if (!box) return;
    if (!text) {
      if (box.firstChild) box.replaceChildren();
      return;
    }
    var cur = box.querySelector(".banner");
    if (cur && cur.getAttribute("data-kind") === kind &&
        cur.querySelector(".banner-problem").textContent === text) {
      return; // unchanged: do not announce it again
    }
    var banner = document.createElement("div");
    banner.className = "banner banner-warn";
    banner.setAttribute("data-kind", kind);
    var p = document.createElement("p");
    p.className = "banner-text";
    var strong = document.createElement("strong");
    strong.className = "banner-title";
    strong.textContent = title;
    var span = document.createElement("span");
    span.className = "banner-problem";
    span.textContent = text;
    p.append(strong, " ", span);
    banner.appendChild(p);
    box.replaceChildren(banner);
  }

  function checkHealth() {
    clearTimeout(healthTimer);
    if (document.hidden) return; // resumed on visibilitychange
    fetch("/api/health", { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (r) {
        if (!r.ok) return null; // e.g. a token proxy refusing: no news
        return r.json();
      })
      .then(function (h) {
        healthFailures = 0;
        if (!h) return;
        if (h.status === "degraded") {
          setBanner("problem", "Storage problem:", h.problem || "the worker reports a problem with its data directory.");
        } else {
          setBanner("", "", "");
        }
        // Spooled events the worker refused for good, set aside (views.QuarantineBanner).
        var q = h.quarantined || {};
        setBanner("quarantine", "Events set aside:", q.message || "", "quarantine-banner");
      })
      .catch(function () {
        // One miss can be a restart; two in a row, the worker is gone.
        healthFailures++;
        if (healthFailures >= 2) {
          setBanner("offline", "The mneme worker is not answering.",
            "Claude Code is not held up: hooks spool new events and start the worker again, and the events are stored once it is back.");
        }
      })
      .then(function () {
        healthTimer = setTimeout(checkHealth, HEALTH_EVERY);
      });
  }

  // ---- Close open menus (e.g. Export) on outside click or Escape. ----
  function closeMenus(except) {
    document.querySelectorAll("details.menu[open]").forEach(function (d) {
      if (d !== except) d.removeAttribute("open");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    applyTheme(currentTheme());
    var btn = document.getElementById("theme-toggle");
    if (btn) {
      btn.addEventListener("click", function () {
        var i = THEMES.indexOf(currentTheme());
        applyTheme(THEMES[(i + 1) % THEMES.length]);
      });
    }
    var feed = document.getElementById("feed");
    if (feed && feed.getAttribute("data-live") === "true") startFeed(feed);
    var sessionPage = document.getElementById("session-page");
    if (sessionPage && sessionPage.getAttribute("data-live") === "true") startSession(sessionPage);
    var sessions = document.getElementById("sessions");
    if (sessions && sessions.getAttribute("data-live") === "true") startSessions(sessions);
    memoryEditor();
    var memories = document.getElementById("memories");
    if (memories && memories.getAttribute("data-live") === "true") startMemory(memories);
    if (document.getElementById("status-banner")) {
      healthTimer = setTimeout(checkHealth, HEALTH_EVERY);
      document.addEventListener("visibilitychange", function () {
        if (!document.hidden) checkHealth();
      });
    }
    document.addEventListener("click", function (e) {
      onLoadMore(e);
      closeMenus(e.target.closest("details.menu"));
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") closeMenus(null);
    });
    // Filters apply at once (a search box waits for Enter or the button;
    // the search mode has its own rule below).
    ["feed-filters", "memory-filters"].forEach(function (id) {
      var form = document.getElementById(id);
      if (form) form.addEventListener("change", function (e) {
        if (e.target.type === "search" || e.target.id === "search-mode") return;
        form.submit();
      });
    });
    // The search mode applies at once to the query searched.
    var mode = document.getElementById("search-mode");
    if (mode && !mode.disabled) {
      mode.addEventListener("change", function () {
        if (mode.form && mode.form.elements.q && mode.form.elements.q.value.trim() !== "") mode.form.submit();
      });
    }
  });
})();
