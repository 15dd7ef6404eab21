// Refused writes shown in place (issue 25 item 1). htmx swaps only 2xx answers by default:
// a second "Alex Martin" (422) or a registration over a limit (429) showed nothing on a
// phone with JavaScript on, while the same form without JavaScript showed the message.
//
// One handler for every page, rather than htmx's responseHandling config (htmx reads the
// first <meta name="htmx-config"> only, so a page's own list silently replaces base.html's
// and each page must repeat it) or per-form hx-target-error (an extension to load and an
// attribute every form must remember). Only writes (not GET, not the live sections' polls,
// which retry by themselves) are handled:
// - a 4xx answer that is an HTML fragment is this app's panel with its message (the views
//   answer a refused HTMX write so): it is swapped like a success;
// - a whole HTML page (Django's 403 or 404, a CSRF failure), a text/plain answer (the body
//   guard in tournaments/guard.py: 408, 413, 429, 503, before Django), a 5xx and a network
//   error leave the form as it is and show a message above it, role="alert".
(function () {
  "use strict";
  var SERVER_FAILED = "This could not be sent: the server failed to answer. " +
    "Reload the page to see whether it went in, then try again.";
  var UNREACHABLE = "This could not be sent: the server could not be reached. " +
    "Check your connection, then try again.";
  var MAX_TEXT = 400;

  function isWrite(detail) {
    var verb = detail && detail.requestConfig && detail.requestConfig.verb;
    return !!verb && verb.toLowerCase() !== "get";
  }

  function wholePage(html) {
    return /<!doctype|<html[\s>]|<body[\s>]/i.test(html.slice(0, 2000));
  }

  function clean(text) {
    text = (text || "").replace(/\s+/g, " ").trim();
    return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT - 1) + "\u2026" : text;
  }

  // A whole page's message without its layout: the page's alert, else its title and
  // first paragraph ("Not allowed: You do not manage this tournament.").
  function pageMessage(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var main = doc.querySelector("main") || doc.body;
    if (!main) return "";
    var alert = main.querySelector("[role=alert], .error");
    if (alert) return clean(alert.textContent);
    var h1 = main.querySelector("h1"), p = main.querySelector("p");
    return clean([h1 && h1.textContent, p && p.textContent].filter(Boolean).join(": "));
  }

  function refusalText(xhr) {
    var status = xhr.status;
    var type = (xhr.getResponseHeader("Content-Type") || "").toLowerCase();
    var body = typeof xhr.responseText === "string" ? xhr.responseText : "";
    var text = "";
    if (type.indexOf("text/plain") === 0) text = clean(body);
    else if (status < 500 && type.indexOf("text/html") === 0) text = pageMessage(body);
    if (!text) {
      return status >= 500 ? SERVER_FAILED :
        "This was refused (error " + status + "): reload the page and try again.";
    }
    // A whole 403 page (a CSRF failure after the session changed, a write no longer
    // allowed) is most often a page left open too long.
    if (status === 403 && !/reload/i.test(text)) text += " Reload the page and try again.";
    var wait = parseInt(xhr.getResponseHeader("Retry-After"), 10);
    if (wait > 0 && !/\bwait\b/i.test(text)) {
      text += " Wait " + wait + " second" + (wait === 1 ? "" : "s") + ", then try again.";
    }
    return text;
  }

  // The message goes where the answer would have: inside the target, under its heading
  // (above a table, whose rows cannot hold it). One per target, replaced on each refusal
  // and removed when the next answer is swapped in.
  function place(detail) {
    var target = detail.target;
    if (!target || !document.body.contains(target)) target = detail.elt;
    if (!target || !document.body.contains(target)) return null;
    var table = target.closest("table");
    return { host: table ? table.parentNode : target, table: table };
  }

  function show(detail, text) {
    var where = place(detail);
    if (!where) return;
    var host = where.host, table = where.table;
    var box = host.querySelector(":scope > [data-refusal]");
    if (!box) {
      box = document.createElement("p");
      box.className = "error";
      box.setAttribute("role", "alert");
      box.setAttribute("data-refusal", "");
      var heading = table ? null : host.querySelector(":scope > h1, :scope > h2, :scope > h3");
      if (table) host.insertBefore(box, table);
      else if (heading) heading.after(box);
      else host.prepend(box);
    }
    box.textContent = text;
    if (box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail, xhr = d && d.xhr;
    if (!xhr || !isWrite(d)) return;
    var where = place(d), old = where && where.host.querySelector(":scope > [data-refusal]");
    if (xhr.status < 400) {
      if (old && d.shouldSwap) old.remove();
      return;
    }
    var type = (xhr.getResponseHeader("Content-Type") || "").toLowerCase();
    var body = typeof xhr.responseText === "string" ? xhr.responseText : "";
    if (xhr.status < 500 && type.indexOf("text/html") === 0 && body.trim() && !wholePage(body)) {
      d.shouldSwap = true;
      d.isError = false;
      if (old) old.remove();
      return;
    }
    d.shouldSwap = false;
    show(d, refusalText(xhr));
  });

  ["htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function (e) {
      if (isWrite(e.detail)) show(e.detail, UNREACHABLE);
    });
  });
})();
