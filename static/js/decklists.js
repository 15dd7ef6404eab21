// The deck-check view's Print button (issue 28): the browser's own print, no inline script.
document.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest("[data-print]")) {
    window.print();
  }
});
