// The floor's screens: a deck check's running time counts up on the judge's phone (the
// page shows the minutes at its render without JavaScript).
(function () {
  "use strict";
  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function tick() {
    document.querySelectorAll("[data-since]").forEach(function (el) {
      var s = Math.max(0, Math.floor((Date.now() - Date.parse(el.dataset.since)) / 1000));
      el.textContent = Math.floor(s / 60) + ":" + pad(s % 60);
    });
  }
  setInterval(tick, 1000);
})();
