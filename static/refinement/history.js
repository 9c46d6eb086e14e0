// History page: when the server pushes an event over /ws/events/, reload the list partial.
// The server renders the rows; this script only swaps them in. Only the first page is live.
(function () {
  "use strict";
  const panel = document.getElementById("history-panel");
  const live = document.getElementById("live");
  if (!panel || !panel.dataset.liveUrl || !("WebSocket" in window)) return;

  let pending = null;
  function reload() {
    // Coalesce bursts: an apply of a plan broadcasts one event per proposal.
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      fetch(panel.dataset.liveUrl, { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) { if (html !== null) panel.innerHTML = html; });
    }, 250);
  }

  let delay = 1000;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + "/ws/events/");
    socket.addEventListener("open", function () { live.hidden = false; delay = 1000; });
    socket.addEventListener("message", function (message) {
      let event;
      try { event = JSON.parse(message.data).event || ""; } catch (e) { return; }
      if (event === "live.paused") live.hidden = true; // Redis is down; the page still works
      else if (event === "live.resumed") { live.hidden = false; reload(); }
      else if (event.indexOf("refinement.") === 0) reload();
    });
    socket.addEventListener("close", function (closing) {
      live.hidden = true;
      if (closing.code === 4401) return; // logged out: nothing to listen to
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    });
  }
  connect();
})();
