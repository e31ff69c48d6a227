// The import page: follows the running import over the live stream's
// import_progress events (and /api/import once connected, for what
// happened before), updating the bar and the counts in place.
(function () {
  "use strict";
  var box = document.getElementById("import-progress");
  if (!box || !window.EventSource) return;
  var bar = document.getElementById("import-bar");
  var text = document.getElementById("import-text");
  var done = document.getElementById("import-done");
  var start = document.getElementById("import-start");

  // n is "1 session", "2 sessions".
  function n(k, noun) { return (k || 0) + " " + noun + (k === 1 ? "" : "s"); }

  // seq is the newest state shown: a state is only ever replaced by a
  // newer one, whichever way it came (the snapshot fetched on connect
  // can be answered after the import's last event).
  var seq = 0;

  function show(st) {
    if (!st || (!st.running && !st.stats)) return;
    if (st.seq && st.seq < seq) return;
    seq = st.seq || seq;
    var p = st.progress || {};
    box.hidden = false;
    if (p.bytes > 0) {
      bar.max = p.bytes;
      bar.value = p.bytesDone;
    }
    if (st.running) {
      box.dataset.running = "true";
      start.disabled = true;
      done.hidden = true;
      text.textContent = p.filesDone + " of " + n(p.files, "file") + ": " + n(p.sessions, "session") + ", " +
        n(p.prompts, "prompt") + ", " + n(p.observations, "tool call");
      return;
    }
    var s = st.stats;
    box.dataset.running = "false";
    start.disabled = false;
    bar.max = 1;
    bar.value = 1;
    var read = "Read " + n(s.sessions, "session") + ", " + n(s.prompts, "prompt") + ", " + n(s.observations, "tool call") +
      " (" + s.failures + " failed) from " + n(s.files, "file") + "; skipped " + s.skipped + ", errors " + s.errors + ".";
    if (st["new"]) {
      var a = st["new"];
      read = "New in memory: " + n(a.sessions, "session") + ", " + n(a.prompts, "prompt") + ", " + n(a.observations, "tool call") +
        "; " + (st.known === 1 ? "1 session was" : (st.known || 0) + " sessions were") + " already there. " + read;
    }
    read += st.error ? " Stopped: " + st.error : "";
    // As the page writes it (views/when.go): "Last import, finished
    // 14:05 (just now): …", the time machine-readable in its <time>.
    text.textContent = "";
    if (st.finished) {
      var at = new Date(st.finished);
      var t = document.createElement("time");
      t.id = "import-last-at";
      t.dateTime = st.finished;
      t.title = dateTime(at);
      t.textContent = sameDay(at, new Date()) ? clock(at) : dateTime(at);
      text.append("Last import, finished ", t, " (" + ago(at) + "): ");
    }
    text.append(read);
    done.hidden = false;
  }

  // The shapes of views/when.go: dateTime, clock and ago, in local time.
  function pad(k) { return (k < 10 ? "0" : "") + k; }
  function clock(d) { return pad(d.getHours()) + ":" + pad(d.getMinutes()); }
  function dateTime(d) { return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + clock(d); }
  function sameDay(a, b) { return a.toDateString() === b.toDateString(); }
  function ago(d) {
    var m = Math.floor((Date.now() - d.getTime()) / 60000);
    if (m < 1) return "just now";
    if (m < 60) return m + " min ago";
    if (m < 48 * 60) return Math.floor(m / 60) + " h ago";
    return Math.floor(m / 1440) + " d ago";
  }

  var es = new EventSource("/stream");
  var events = 0;
  es.addEventListener("import_progress", function (e) {
    box.dataset.events = String(++events); // how many arrived (for tests)
    try { show(JSON.parse(e.data)); } catch (err) { /* a bad frame: the next one will do */ }
  });
  es.onopen = function () {
    fetch("/api/import", { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (j) { if (j) show(j.state); })
      .catch(function () {});
  };
  window.addEventListener("pagehide", function () { es.close(); });
})();
