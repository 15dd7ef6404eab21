// Notifications with Web Push (issue 29): the opt-in on a player's private page and on
// the judges' screen (templates/tournaments/push/_optin.html). The button fits what
// this browser can do: "Notify me" subscribes with PushManager (after the browser asks
// for permission) and posts the subscription to the server; "Stop notifications"
// unsubscribes and tells the server. A browser without the Push API, or a page that is
// not secure (plain HTTP at a venue), says why nothing is offered.
//
// The fallback on the player's page: a short beep and a vibration when their table or
// opponent appears or changes, and when their opponent reports, once the player has
// touched the page (browsers refuse sound and vibration before a gesture).
(function () {
  "use strict";
  var WORKER = "/push-sw.js";

  function text(section, selector, value, hidden) {
    var el = section.querySelector(selector);
    if (!el) return;
    if (value !== undefined) el.textContent = value;
    el.hidden = Boolean(hidden);
  }

  // The words are the page's (translated there): data-said-*.
  function said(section, what) {
    return section.dataset["said" + what.charAt(0).toUpperCase() + what.slice(1)] || "";
  }

  function keyBytes(base64url) {
    var padded = (base64url + "===".slice((base64url.length + 3) % 4))
      .replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function csrf(section) {
    var input = section.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function post(section, body) {
    return fetch(section.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "HX-Request": "true",
        "X-CSRFToken": csrf(section)
      },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.text().then(function (html) {
        var box = document.createElement("div");
        box.innerHTML = html.trim();
        var fresh = box.querySelector("#push-optin");
        if (fresh) {
          section.replaceWith(fresh);
          setUp(fresh);
        }
        if (!response.ok) throw new Error("refused");
        return fresh;
      });
    });
  }

  function show(section, subscribed) {
    section.dataset.subscribed = subscribed ? "1" : "0";
    text(section, "[data-push-state]", subscribed ? said(section, "on") : said(section, "off"));
    text(section, "[data-push-on]", undefined, subscribed);
    text(section, "[data-push-off]", undefined, !subscribed);
  }

  function refuse(section, message) {
    text(section, "[data-push-refused]", message, false);
    text(section, "[data-push-fallback]", undefined, false);
  }

  function unsupported(section, why) {
    section.dataset.subscribed = "0";
    text(section, "[data-push-state]", why);
    text(section, "[data-push-on]", undefined, true);
    text(section, "[data-push-off]", undefined, true);
    text(section, "[data-push-fallback]", undefined, false);
  }

  function registration(section) {
    return navigator.serviceWorker.register(WORKER, { scope: section.dataset.scope });
  }

  // PushManager.subscribe needs the worker active: wait for it (not serviceWorker.ready,
  // which waits for a worker whose scope holds the page).
  function active(reg) {
    if (reg.active) return Promise.resolve(reg);
    var worker = reg.installing || reg.waiting;
    return new Promise(function (resolve) {
      if (!worker) return resolve(reg);
      worker.addEventListener("statechange", function () {
        if (worker.state === "activated") resolve(reg);
      });
    });
  }

  function turnOn(section) {
    text(section, "[data-push-refused]", "", true);
    var ask = window.Notification && Notification.requestPermission
      ? Notification.requestPermission() : Promise.resolve("granted");
    return Promise.resolve(ask).then(function (permission) {
      if (permission !== "granted") {
        var blocked = new Error(said(section, "blocked"));
        blocked.blocked = true;
        throw blocked;
      }
      return registration(section);
    }).then(active).then(function (reg) {
      return reg.pushManager.subscribe({
        userVisibleOnly: true, applicationServerKey: keyBytes(section.dataset.key)
      });
    }).then(function (subscription) {
      return post(section, subscription.toJSON());
    }).then(function (fresh) {
      if (fresh) show(fresh, true);
    }).catch(function (error) {
      var message = error && error.message && error.message !== "refused"
        ? error.message : "";
      if (message && !error.blocked) message = said(section, "failed") + " " + message;
      if (message) refuse(document.getElementById("push-optin") || section, message);
    });
  }

  function turnOff(section) {
    text(section, "[data-push-refused]", "", true);
    return navigator.serviceWorker.getRegistration(section.dataset.scope).then(function (reg) {
      return reg ? reg.pushManager.getSubscription() : null;
    }).then(function (subscription) {
      if (!subscription) return post(section, { action: "stop", endpoint: "" });
      var endpoint = subscription.endpoint;
      return subscription.unsubscribe().then(function () {
        return post(section, { action: "stop", endpoint: endpoint });
      });
    }).then(function (fresh) {
      if (fresh) show(fresh, false);
    }).catch(function (error) {
      refuse(document.getElementById("push-optin") || section,
        said(section, "stopFailed") + " " + (error && error.message));
    });
  }

  function setUp(section) {
    if (!section || section.dataset.ready) return;
    section.dataset.ready = "1";
    if (section.dataset.offered !== "1") return;
    if (!window.isSecureContext) {
      return unsupported(section, said(section, "insecure"));
    }
    if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
      return unsupported(section, said(section, "noPush"));
    }
    var on = section.querySelector("[data-push-on]"), off = section.querySelector("[data-push-off]");
    on.addEventListener("click", function () { turnOn(section); });
    off.addEventListener("click", function () { turnOff(section); });
    show(section, false);
    navigator.serviceWorker.getRegistration(section.dataset.scope).then(function (reg) {
      return reg ? reg.pushManager.getSubscription() : null;
    }).then(function (subscription) {
      show(section, Boolean(subscription));
    }).catch(function () { show(section, false); });
  }

  // --- the live page's own alert (the fallback) -----------------------------------------
  var audio = null, gestured = false, last = null;

  function gesture() {
    gestured = true;
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context || audio) return;
    try { audio = new Context(); if (audio.resume) audio.resume(); } catch (e) { audio = null; }
  }

  function alertPlayer() {
    if (!gestured) return;
    try {
      if (audio) {
        var now = audio.currentTime, osc = audio.createOscillator(), gain = audio.createGain();
        osc.frequency.value = 660;
        gain.gain.setValueAtTime(0.0001, now);
        gain.gain.exponentialRampToValueAtTime(0.3, now + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.25);
        osc.connect(gain).connect(audio.destination);
        osc.start(now);
        osc.stop(now + 0.3);
      }
    } catch (e) { /* no sound: the page itself shows it */ }
    try { if (navigator.vibrate) navigator.vibrate([150, 80, 150]); } catch (e) { /* refused */ }
  }

  function pairingNow() {
    var status = document.getElementById("private-status");
    if (!status) return null;
    var round = status.querySelector("[data-round]"), table = status.querySelector("[data-table]"),
      opponent = status.querySelector("[data-opponent]");
    return [round, table, opponent].map(function (el) { return el ? el.textContent.trim() : ""; }).join("|");
  }

  function reportNow() {
    var notice = document.getElementById("private-report-notice");
    return notice ? notice.textContent.trim() : "";
  }

  function look() {
    var now = { pairing: pairingNow(), report: reportNow() };
    if (last && ((now.pairing && now.pairing !== last.pairing) ||
        (now.report && now.report !== last.report))) alertPlayer();
    last = now;
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUp(document.getElementById("push-optin"));
    ["pointerdown", "keydown", "touchstart"].forEach(function (name) {
      document.addEventListener(name, gesture, { passive: true });
    });
    look();
  });
  document.addEventListener("htmx:afterSettle", function () {
    setUp(document.getElementById("push-optin"));
    look();
  });
})();
