// mneme theme bootstrap: applies the stored theme before first paint.
// "system" (the default) follows prefers-color-scheme via CSS.
(function () {
  try {
    var t = localStorage.getItem("mneme-theme");
    if (t === "light" || t === "dark") {
      document.documentElement.setAttribute("data-theme", t);
    }
  } catch (e) { /* storage disabled: follow the system */ }
})();
