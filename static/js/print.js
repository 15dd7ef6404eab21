// The print views' one enhancement: a Print button (hidden until this runs).
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });
});
