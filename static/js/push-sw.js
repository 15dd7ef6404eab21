// The service worker of Web Push (issue 29), served at /push-sw.js and registered by
// static/js/push.js for the page that subscribed: a player's private page
// (/p/<token>/) or a judges' screen (/t/<slug>/judge/). It shows what the server sent
// (tournaments/webpush.py: {title, body, tag, lang}) and, on a tap, opens that page:
// its own scope (the server keeps no private link, so the message carries none).
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(self.registration.showNotification(data.title || "Swiss", {
    body: data.body || "",
    tag: data.tag || undefined,
    renotify: Boolean(data.tag),
    lang: data.lang || "",
    data: { url: self.registration.scope }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || self.registration.scope;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true })
    .then(function (open) {
      for (var i = 0; i < open.length; i++) {
        if (open[i].url.indexOf(url) === 0 && "focus" in open[i]) return open[i].focus();
      }
      return self.clients.openWindow(url);
    }));
});
