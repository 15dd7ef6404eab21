// The organizer's event screen: its quick entry takes the focus as `autofocus` would, but
// without scrolling: on a tall screen (a bracket above the rounds) autofocus scrolled the
// title and the event's status out of view (issue 26). Without JavaScript the organizer
// clicks into the field; the round screen keeps plain autofocus (its tools are on top).
(function () {
  "use strict";
  function focusQuietly(root) {
    var el = root && root.querySelector ? root.querySelector("[data-autofocus]") : null;
    if (!el && root && root.matches && root.matches("[data-autofocus]")) el = root;
    if (el && document.activeElement !== el) el.focus({ preventScroll: true });
  }
  document.addEventListener("DOMContentLoaded", function () { focusQuietly(document); });
  // A panel htmx swapped in (the board after pairing) focuses its own field likewise.
  document.addEventListener("htmx:load", function (e) { focusQuietly(e.detail && e.detail.elt); });
})();
