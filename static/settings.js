// settings.js: niceties of the settings page. Saving works without it (a
// plain form post); with it the page tests redaction rules live, counts what
// a retention would delete, and refreshes the context preview in place.
// State-changing calls send the CSRF token from <meta name="csrf-token">.
(function () {
  "use strict";

  function token() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute("content") : "";
  }

  function show(el, text) {
    if (!el) return;
    el.textContent = text;
    el.hidden = text === "";
  }

  // Live "test this rule" box.
  function ruleTest() {
    var box = document.getElementById("rule-test");
    if (!box) return;
    box.hidden = false;
    var name = document.getElementById("rule-test-name");
    var pattern = document.getElementById("rule-test-pattern");
    var sample = document.getElementById("rule-test-sample");
    var err = document.getElementById("rule-test-error");
    var result = document.getElementById("rule-test-result");

    function run() {
      show(err, "");
      fetch("/api/settings/test-rule", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Csrf-Token": token() },
        credentials: "same-origin",
        body: JSON.stringify({ name: name.value || "rule", pattern: pattern.value, sample: sample.value })
      }).then(function (r) {
        return r.json().then(function (body) { return { ok: r.ok, body: body }; });
      }).then(function (res) {
        if (!res.ok) {
          var msg = res.body.error || "error";
          if (res.body.fields && res.body.fields.length) msg = res.body.fields[0].message;
          show(result, "");
          show(err, msg);
          pattern.setAttribute("aria-invalid", "true");
          return;
        }
        pattern.removeAttribute("aria-invalid");
        show(result, res.body.matches + " match(es)\n" + res.body.result);
      }).catch(function (e) { show(err, String(e)); });
    }
    document.getElementById("rule-test-run").addEventListener("click", run);

    // Each rule row gets a "Test" button that loads it into the box.
    document.querySelectorAll(".rules tr.rule").forEach(function (row) {
      var btn = row.querySelector(".rule-try");
      if (!btn) return;
      btn.hidden = false;
      btn.addEventListener("click", function () {
        var code = row.querySelector("[data-pattern]");
        var input = row.querySelector('input[name$=".pattern"]');
        name.value = row.getAttribute("data-rule") || "rule";
        pattern.value = code ? code.getAttribute("data-pattern") : (input ? input.value : "");
        sample.focus();
        if (sample.value) run();
      });
    });
  }

  // Live count of what a retention setting would delete.
  function retentionCount() {
    var input = document.getElementById("f-retention-observationDays");
    var out = document.getElementById("retention-count");
    if (!input || !out) return;
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var days = parseInt(input.value, 10);
        if (isNaN(days) || days < 0) return;
        if (days === 0) { out.textContent = "Nothing is deleted."; return; }
        fetch("/api/settings/retention?days=" + days, { credentials: "same-origin" })
          .then(function (r) { return r.json(); })
          .then(function (b) {
            if (typeof b.count === "number") {
              out.textContent = "With this setting, " + b.count + " observation(s) would be deleted now.";
            }
          });
      }, 250);
    });
  }

  // Preview refresh without a page load.
  function preview() {
    var form = document.getElementById("preview-form");
    var sel = document.getElementById("preview-project");
    if (!form || !sel) return;
    function refresh(ev) {
      if (ev) ev.preventDefault();
      if (!sel.value) return;
      fetch("/api/settings/preview?project=" + encodeURIComponent(sel.value), { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (b) {
          var text = document.getElementById("preview-text");
          if (!text) return;
          text.textContent = b.text || "(nothing would be injected)";
          document.getElementById("preview-tokens").textContent = b.tokens;
          document.getElementById("preview-bytes").textContent = b.bytes;
          document.getElementById("preview-max").textContent = b.maxTokens;
        });
    }
    form.addEventListener("submit", refresh);
    sel.addEventListener("change", refresh);
  }

  // Ask before rewriting stored data.
  function redactConfirm() {
    var form = document.getElementById("redact-form");
    if (!form) return;
    form.addEventListener("submit", function (ev) {
      if (!window.confirm("Rewrite all stored data with the current redaction rules? This cannot be undone.")) {
        ev.preventDefault();
      }
    });
  }

  // firstError brings a refused save's first bad field into view and
  // gives it the focus, wherever it is on the long form.
  function firstError() {
    if (!document.getElementById("settings-errors")) return;
    var el = document.querySelector('#settings-form [aria-invalid="true"], #settings-form .has-error, #settings-form .field-error:not([hidden])');
    if (!el) return;
    var input = el.matches("input, textarea, select") ? el : el.querySelector("input, textarea, select");
    if (!input && el.parentElement) input = el.parentElement.querySelector("input, textarea, select");
    (input || el).scrollIntoView({ block: "center" });
    if (input) input.focus({ preventScroll: true });
  }

  // place keeps the form's hidden at and builtinOpen up to date: where
  // it was last edited (a section, or the built-in rules) and whether the
  // built-in rules are unfolded, so that a save comes back there.
  function place() {
    var form = document.getElementById("settings-form");
    var at = document.getElementById("settings-at");
    var open = document.getElementById("settings-builtin-open");
    var builtins = document.getElementById("builtin-rules");
    if (!form || !at) return;
    function mark(ev) {
      var t = ev.target;
      if (!t || !t.closest) return;
      var sec = t.closest("#builtin-rules") || t.closest(".settings-section");
      if (sec && sec.id) at.value = sec.id;
    }
    form.addEventListener("input", mark);
    form.addEventListener("change", mark);
    form.addEventListener("submit", function () {
      if (open && builtins) open.value = builtins.open ? "1" : "";
    });
  }

  function init() {
    place();
    firstError();
    ruleTest();
    retentionCount();
    preview();
    redactConfirm();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
