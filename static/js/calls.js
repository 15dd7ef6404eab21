// The judges' screen (templates/tournaments/calls/): a new call is announced when the
// live section brings it (static/js/live.js refetches it when the stream says the calls
// moved): a visible alert, a short beep (Web Audio, once the judge has touched the page:
// browsers refuse sound before a gesture) and a vibration where the phone allows it.
// Waiting times count up between refetches. Without JavaScript the page still works.
(function () {
  "use strict";
  var audio = null, soundOn = false, seen = null;

  // What deserves an alert: a call waiting for any judge, or, on the head judge's
  // screen, a call handed up and waiting for them.
  function waiting(section) {
    var head = section.dataset.head === "1", keys = {};
    section.querySelectorAll("article.call").forEach(function (el) {
      if (el.dataset.judge) return;
      if (el.dataset.state === "open") keys[el.dataset.call] = el.dataset.table;
      else if (head && el.dataset.state === "head") keys[el.dataset.call + ":head"] = el.dataset.table;
    });
    return keys;
  }

  function beep() {
    if (!audio || !soundOn) return;
    try {
      var now = audio.currentTime;
      [0, 0.25].forEach(function (at) {
        var osc = audio.createOscillator(), gain = audio.createGain();
        osc.type = "sine";
        osc.frequency.value = 880;
        gain.gain.setValueAtTime(0.0001, now + at);
        gain.gain.exponentialRampToValueAtTime(0.4, now + at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.18);
        osc.connect(gain).connect(audio.destination);
        osc.start(now + at);
        osc.stop(now + at + 0.2);
      });
    } catch (e) { /* no sound: the visible alert stays */ }
  }

  function announce(tables) {
    var box = document.getElementById("call-alert");
    if (box) {
      box.textContent = (tables.length === 1 ? "New call: table " : "New calls: tables ") +
        tables.join(", ");
      box.hidden = false;
      box.classList.remove("flash");
      void box.offsetWidth; // restart the animation
      box.classList.add("flash");
    }
    if (document.hidden) document.title = "(!) " + document.title.replace(/^\(!\) /, "");
    beep();
    try { if (navigator.vibrate) navigator.vibrate([200, 100, 200]); } catch (e) { /* refused */ }
  }

  function look() {
    var section = document.getElementById("judge-calls");
    if (!section) return;
    var now = waiting(section);
    if (seen !== null) {
      var fresh = [];
      Object.keys(now).forEach(function (key) {
        if (!(key in seen) && fresh.indexOf(now[key]) === -1) fresh.push(now[key]);
      });
      if (fresh.length) announce(fresh);
    }
    seen = now;
    tickWaits();
  }

  function tickWaits() {
    // The words come from the section in the page's language (pages.calls.waited's).
    var box = document.getElementById("judge-calls");
    if (!box) return;
    var words = box.dataset;
    document.querySelectorAll("#judge-calls [data-since]").forEach(function (el) {
      var since = Date.parse(el.dataset.since);
      if (isNaN(since)) return;
      var minutes = Math.max(0, Math.floor((Date.now() - since) / 60000));
      el.textContent = minutes < 1 ? (words.waitNow || "just now") : minutes < 60 ?
        (words.waitMinutes || "%(minutes)s min").replace("%(minutes)s", minutes) :
        (words.waitHours || "%(hours)s h %(minutes)s min")
          .replace("%(hours)s", Math.floor(minutes / 60)).replace("%(minutes)s", minutes % 60);
    });
  }

  // Sound needs a gesture first: the first touch, click or key anywhere turns it on.
  function enableSound() {
    if (soundOn) return;
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      audio = audio || new Context();
      if (audio.resume) audio.resume();
      soundOn = true;
    } catch (e) { return; }
    var button = document.getElementById("call-sound");
    if (button) {
      button.textContent = "Sound and vibration on";
      button.disabled = true;
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("call-sound");
    if (button && (window.AudioContext || window.webkitAudioContext)) button.hidden = false;
    ["pointerdown", "keydown", "touchstart"].forEach(function (name) {
      document.addEventListener(name, enableSound, { passive: true });
    });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) document.title = document.title.replace(/^\(!\) /, "");
    });
    look();
    setInterval(tickWaits, 20000);
  });
  document.addEventListener("htmx:afterSettle", function (e) {
    var el = e.detail && e.detail.elt;
    if (el && (el.id === "judge-calls" || document.getElementById("judge-calls"))) look();
  });
})();
