// Live updates for any page that opts in, over /ws/events/ (learnportal/ws/events.py).
//
// A page declares what is live; the server renders everything:
//   <span data-live-value="feedback_count">  its text becomes that key of an event's payload;
//   <section data-live-region="components" data-live-on="feedback. experience.">
//     on an event whose name starts with one of those prefixes (any event without the
//     attribute), the page's own URL is fetched again and the element with the same
//     data-live-region in it replaces this one;
//   [data-live-badge]  shown while the page is live.
// A region the person is typing or focused in is left alone until they leave it. The socket
// reconnects with exponential backoff and jitter; while it is down #live-status says so, and
// once it is back every region is fetched again, since events were missed meanwhile.
// The socket hears the project the page shows (<body data-live-project>), and only it.
(function () {
  "use strict";
  if (!("WebSocket" in window) || !document.querySelector("[data-live-region], [data-live-value]")) return;

  const FIRST_DELAY = 1000;
  const MAX_DELAY = 30000;
  const REFETCH_GAP = 1000; // at most one refetch of the page a second, however busy
  const CLOSED_FOR_GOOD = 4401; // logged out, deactivated, token revoked
  const NO_PROJECT = 4404; // the page's project is no longer one this person may enter
  const project = document.body.dataset.liveProject || "";
  const status = document.getElementById("live-status");

  function say(text) { if (status) status.textContent = text; }
  function badges(shown) {
    document.querySelectorAll("[data-live-badge]").forEach(function (el) { el.hidden = !shown; });
  }

  // --- counters ---------------------------------------------------------------------------
  function setValues(payload) {
    document.querySelectorAll("[data-live-value]").forEach(function (el) {
      const value = payload[el.dataset.liveValue];
      if (typeof value === "number" || typeof value === "string") el.textContent = String(value);
    });
  }

  // --- regions ----------------------------------------------------------------------------
  const stale = new Set();
  let fetching = false;
  let again = false;

  function wants(region, event) {
    const on = region.dataset.liveOn;
    return !on || on.split(/\s+/).some(function (prefix) { return prefix && event.indexOf(prefix) === 0; });
  }

  function busy(region) {
    const active = document.activeElement;
    return region.dataset.liveDirty === "1" || (active && active !== document.body && region.contains(active));
  }

  function markStale(event) {
    document.querySelectorAll("[data-live-region]").forEach(function (region) {
      if (event === null || wants(region, event)) stale.add(region.dataset.liveRegion);
    });
    if (stale.size) refetch();
  }

  function refetch() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(location.href, { credentials: "same-origin", headers: { "X-Live-Refresh": "1" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) { if (html !== null) swap(new DOMParser().parseFromString(html, "text/html")); })
      .catch(function () { /* offline: the socket's reconnect refetches */ })
      .then(function () {
        setTimeout(function () {
          fetching = false;
          if (again) { again = false; refetch(); }
        }, REFETCH_GAP);
      });
  }

  function swap(fresh) {
    stale.forEach(function (name) {
      const selector = '[data-live-region="' + CSS.escape(name) + '"]';
      const region = document.querySelector(selector);
      const replacement = fresh.querySelector(selector);
      if (!region) { stale.delete(name); return; }
      if (busy(region)) return; // stays stale; swapped when the person leaves it
      if (replacement) region.replaceWith(document.adoptNode(replacement));
      else region.remove(); // gone from the page, as an empty state once data arrives
      stale.delete(name);
    });
    document.querySelectorAll("[data-live-value]").forEach(function (el) {
      const same = fresh.querySelector('[data-live-value="' + CSS.escape(el.dataset.liveValue) + '"]');
      if (same) el.textContent = same.textContent;
    });
  }

  document.addEventListener("input", function (event) {
    const region = event.target.closest && event.target.closest("[data-live-region]");
    if (region) region.dataset.liveDirty = "1";
  });
  document.addEventListener("focusout", function () {
    if (stale.size) setTimeout(refetch, 0);
  });

  // --- the socket -------------------------------------------------------------------------
  let attempt = 0;
  let leaving = false;
  let missed = false;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const query = project ? "?project=" + encodeURIComponent(project) : "";
    const socket = new WebSocket(scheme + location.host + "/ws/events/" + query);
    socket.addEventListener("open", function () {
      attempt = 0;
      say("");
      badges(true);
      if (missed) { missed = false; markStale(null); }
    });
    socket.addEventListener("message", function (message) {
      let frame;
      try { frame = JSON.parse(message.data); } catch (e) { return; }
      const event = String(frame.event || "");
      if (event === "live.paused") {
        badges(false);
        say((frame.payload && frame.payload.message) || "Live updates are paused.");
      } else if (event === "live.resumed") {
        badges(true);
        say("");
        markStale(null);
      } else {
        if (frame.payload && typeof frame.payload === "object") setValues(frame.payload);
        markStale(event);
      }
    });
    socket.addEventListener("close", function (closing) {
      badges(false);
      if (leaving) return;
      if (closing.code === CLOSED_FOR_GOOD) {
        say("Live updates stopped: log in again to see changes as they happen.");
        return;
      }
      if (closing.code === NO_PROJECT) {
        say("Live updates stopped: you are no longer in this project.");
        return;
      }
      missed = true;
      say("Offline — reconnecting…");
      // Exponential backoff with jitter: many browsers cut off at once do not return at once.
      const ceiling = Math.min(MAX_DELAY, FIRST_DELAY * Math.pow(2, attempt));
      attempt += 1;
      setTimeout(connect, ceiling / 2 + Math.random() * ceiling / 2);
    });
  }

  window.addEventListener("pagehide", function () { leaving = true; });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { leaving = false; missed = true; connect(); } // back from the cache
  });
  connect();
})();
