// Live pages: the find-me filter and the round clock (the projector pages in projector.js).
// Everything here is an enhancement: without JavaScript the pages still work.
(function () {
  "use strict";
  var skewMs = 0; // server clock minus this phone's clock, from the Date header

  // A pairings row carries its players' names (data-name); a standings row names its
  // player in its header cell only, which keeps a 2,000-row table's poll small.
  function rowName(row) {
    if (row.dataset.name !== undefined) return row.dataset.name;
    var cell = row.querySelector("th[scope=row] a");
    return cell ? cell.textContent.toLowerCase() : "";
  }

  function applyFilter() {
    var input = document.getElementById("find");
    if (!input) return;
    var q = input.value.trim().toLowerCase();
    var rows = document.querySelectorAll(input.dataset.filter);
    var visible = [];
    rows.forEach(function (row) {
      var show = !q || rowName(row).indexOf(q) !== -1;
      row.hidden = !show;
      if (show) visible.push(row);
    });
    var found = document.getElementById("found");
    if (!found) return;
    found.textContent = "";
    if (q && visible.length === 1 && visible[0].dataset.table !== undefined) {
      var row = visible[0];
      var card = document.createElement("div");
      card.className = "card found-card";
      var big = document.createElement("p");
      big.className = "big";
      big.textContent = row.dataset.table ? "Table " + row.dataset.table : "";
      var who = document.createElement("p");
      who.textContent = row.dataset.kind === "bye" ? "You have the bye" :
        (row.dataset.opponent ? "vs " + row.dataset.opponent : "");
      card.appendChild(big);
      card.appendChild(who);
      found.appendChild(card);
    }
  }

  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function fmt(ms) {
    var s = Math.round(Math.abs(ms) / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    var text = (h ? h + ":" + pad(m) : m) + ":" + pad(s % 60);
    return (ms < 0 ? "-" : "") + text;
  }
  function tickClocks() {
    document.querySelectorAll("[data-clock-ends]").forEach(function (el) {
      var left = Date.parse(el.dataset.clockEnds) - (Date.now() + skewMs);
      var time = el.querySelector(".clock-time"), label = el.querySelector(".clock-label");
      if (label) label.textContent = left < 0 ? "Over time" : "Time left";
      if (time) time.textContent = fmt(left);
      el.classList.toggle("over", left < 0);
    });
  }

  // A phone that opened a player's page is that player's: its Standings link then
  // opens the leaders and the rows around them (?me=), a small poll; the fragment links
  // to all players. Without JavaScript the link opens the whole table.
  function rememberMe() {
    var mine = document.querySelector("#player[hx-get]");
    var match = mine && mine.getAttribute("hx-get").match(/^\/t\/([^/]+)\/players\/([^/]+)\/$/);
    try {
      if (match) localStorage.setItem("me:" + match[1], decodeURIComponent(match[2]));
      document.querySelectorAll("nav.event a[href$='/standings/']").forEach(function (a) {
        var slug = a.getAttribute("href").split("/")[2], me = localStorage.getItem("me:" + slug);
        if (me) a.setAttribute("href", a.getAttribute("href") + "?me=" + encodeURIComponent(me));
      });
    } catch (e) { /* storage refused (private mode): the plain link stays */ }
  }

  // Live sections refetch (hx-trigger="live", with their ETag) when the server says what
  // they show changed: one event stream per page (data-live, tournaments/stream.py), not a
  // poll every few seconds. While the stream is down (a server that does not stream, a
  // proxy that cuts it) the page polls every data-poll seconds instead, and once every
  // SAFETY_MS in any case, should a change ever go untold.
  var SAFETY_MS = 120000;
  var REOPEN_MS = 60000;
  // A section whose refetch is under way swaps itself out (outerHTML) when it ends, and
  // htmx drops a trigger that arrives meanwhile with the old element: it is kept here,
  // by the section's id, and sent to the new element once the swap has settled, so a
  // change told during a refetch is never lost (issue 23).
  var inFlight = {}, pending = {};
  var STUCK_MS = 15000; // a refetch that never ended: trigger anyway
  function refetch(el) {
    var id = el.id, since = id && inFlight[id];
    if (since && Date.now() - since < STUCK_MS) { pending[id] = true; return; }
    htmx.trigger(el, "live");
  }
  function settled(e) {
    var el = e.detail && e.detail.elt, id = el && el.id;
    if (!id || !(id in inFlight)) return;
    delete inFlight[id];
    if (!pending[id]) return;
    delete pending[id];
    var now = document.getElementById(id);
    if (now && now.hasAttribute("data-live")) refetch(now);
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var el = e.detail && e.detail.elt;
    if (el && el.id && el.hasAttribute("data-live")) inFlight[el.id] = Date.now();
  });
  ["htmx:afterSettle", "htmx:afterRequest", "htmx:responseError", "htmx:sendError",
   "htmx:timeout", "htmx:swapError"].forEach(function (name) {
    document.addEventListener(name, function (e) {
      // afterRequest of a section swapped out comes from a detached element: the new
      // one's afterSettle ends it; the others end requests that swapped nothing.
      if (name === "htmx:afterRequest" && e.detail && e.detail.successful) return;
      settled(e);
    });
  });
  function follow() {
    var first = document.querySelector("[data-live]");
    if (!first || !window.htmx) return;
    var pollMs = (parseFloat(first.dataset.poll) || 3) * 1000;
    var open = false, last = Date.now();
    function refresh() {
      last = Date.now();
      document.querySelectorAll("[data-live]").forEach(refetch);
    }
    // On a reconnection: whatever changed while the stream was down. A page that named
    // its version (?at=) is told by the stream itself if it moved before it opened.
    var opened = false, named = /[?&]at=/.test(first.dataset.live);
    function stream() {
      var source = new EventSource(first.dataset.live);
      source.onopen = function () {
        open = true;
        if (opened || !named) refresh();
        opened = true;
      };
      source.onerror = function () {
        open = false;
        // A refused stream (a server over its limit answers 503: tournaments/stream.py)
        // is closed for good by EventSource: the page polls, and tries again in a minute
        // or two, spread so that refused phones do not all return at once.
        if (source.readyState === 2) setTimeout(stream, REOPEN_MS * (1 + Math.random()));
      };
      // "floor": a judges' screen's calls moved (?floor=1).
      ["player", "near", "shared", "floor"].forEach(function (name) {
        source.addEventListener(name, refresh);
      });
    }
    if (window.EventSource) stream();
    setInterval(function () {
      var since = Date.now() - last;
      if ((!open && since >= pollMs) || since >= SAFETY_MS) refresh();
    }, 1000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    rememberMe();
    follow();
    var input = document.getElementById("find");
    if (input) input.addEventListener("input", applyFilter);
    applyFilter();
    tickClocks();
    setInterval(tickClocks, 1000);
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var date = e.detail.xhr && e.detail.xhr.getResponseHeader("Date");
    if (date) skewMs = Date.parse(date) - Date.now();
  });
  document.addEventListener("htmx:afterSwap", function () {
    applyFilter();
    tickClocks();
  });
})();
