// The lease: a countdown, a warning in its last minute, and what its end means; on every page
// that holds something for a person (templates/feedback/partials/lease_clock.html says what:
// a turn to rate, a comparison to judge). Counted from the seconds the server said were left,
// so the two clocks need not agree.
(function () {
  "use strict";
  const clock = document.getElementById("lease-clock");
  if (!clock) return;
  const left = clock.querySelector(".lease-left");
  const note = clock.querySelector(".lease-note");
  const unit = clock.dataset.unit || "turn";
  const act = clock.dataset.act || "rating";
  const until = performance.now() + Number(clock.dataset.remaining) * 1000;
  const warn = Number(clock.dataset.warn);
  let state = "";
  const tick = function () {
    const seconds = Math.max(0, Math.ceil((until - performance.now()) / 1000));
    left.textContent =
      Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
    const now = seconds === 0 ? "ended" : seconds <= warn ? "ending" : "";
    if (now === state) return;
    state = now;
    clock.classList.toggle("lease-ending", now === "ending");
    clock.classList.toggle("lease-ended", now === "ended");
    note.textContent = now === "ending"
      ? "Your hold ends soon: submit before it does, or the " + unit + " may go to someone else."
      : now === "ended"
        ? "Your hold on this " + unit + " has ended. A " + act + " sent now is kept only if the " +
          unit + " still needs one; reload for a " + unit + " held for you."
        : "";
    if (now === "ended") window.clearInterval(timer);
  };
  const timer = window.setInterval(tick, 1000);
  tick();
})();
