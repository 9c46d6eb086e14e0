// Reviewing a person's rating, keyboard first (/review/, templates/feedback/review.html), in
// the ways of compare.js. A chooses Accept; R chooses Reject and puts the focus in the reason
// (a rejection needs one); Enter sends the choice, also from the reason field (Shift+Enter
// there starts a new line; Ctrl+Enter sends from anywhere); ? lists the keys. A tap on Accept
// or Reject chooses too, and Submit sends. Shortcuts never fire while a text field has the
// focus; Esc leaves the field.
// Without this script the form still works: Accept and Reject are its two submit buttons.
(function () {
  "use strict";
  const form = document.getElementById("review-form");
  if (!form) return;
  const reason = document.getElementById("reason");
  const submit = document.getElementById("review-submit");
  const buttons = {
    accept: document.getElementById("decision-accept"),
    reject: document.getElementById("decision-reject"),
  };

  const shared = window.learnportalKeys;
  const say = shared.say;

  // The choice travels in a field of its own: the buttons only choose now.
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = "decision";
  form.appendChild(field);
  Object.keys(buttons).forEach(function (decision) {
    const button = buttons[decision];
    button.type = "button";
    button.removeAttribute("name");
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", function () {
      choose(decision);
      if (decision === "reject") reason.focus();
    });
  });
  form.classList.add("js-review");
  submit.hidden = false;

  function choose(decision) {
    field.value = decision;
    Object.keys(buttons).forEach(function (each) {
      buttons[each].setAttribute("aria-pressed", each === decision ? "true" : "false");
    });
    submit.textContent = decision === "accept" ? "Submit: accept " : "Submit: reject ";
    const key = document.createElement("kbd");
    key.className = "key";
    key.textContent = "Enter";
    submit.appendChild(key);
    say(decision === "accept"
      ? "Accept chosen: submit it (Enter)."
      : "Reject chosen: say why, then submit it (Enter).");
  }

  // ---- Sending: once (keys.js), a reason and no choice a rejection ----
  function send() {
    if (!field.value) {
      if (!reason.value.trim()) {
        say("Choose Accept (A) or Reject (R) first.");
        return;
      }
      choose("reject"); // a reason and no choice: the reason is a rejection's
    }
    shared.send(form);
  }
  form.addEventListener("submit", function (event) {
    if (!field.value) {
      event.preventDefault();
      say("Choose Accept (A) or Reject (R) first.");
    }
  });

  // ---- Keys ----
  const typing = shared.typing;
  const pressable = shared.pressable;

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    if (shared.shortcutsOpen()) return; // the dialog closes itself on Esc
    const target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
      return;
    }
    if (typing(target)) {
      if (event.key === "Escape") target.blur();
      else if (event.key === "Enter" && target === reason && !event.shiftKey && !event.altKey) {
        event.preventDefault();
        send();
      }
      return;
    }
    if (event.key === "Enter" && (target === buttons.accept || target === buttons.reject)) {
      // Enter on a decision is that decision, sent (a tap or Space only chooses).
      event.preventDefault();
      choose(target === buttons.accept ? "accept" : "reject");
      send();
      return;
    }
    if (event.key === "Enter" && pressable(target)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return; // the browser's own
    let done = true;
    switch (event.key) {
      case "a": case "A":
        choose("accept");
        break;
      case "r": case "R":
        choose("reject");
        reason.focus();
        break;
      case "Enter":
        send();
        break;
      case "?":
        shared.openShortcuts();
        break;
      default:
        done = false;
    }
    if (done) event.preventDefault();
  });

  // What was chosen before a refusal, chosen again; the refused field, focused.
  const chosen = form.dataset.chosen;
  if (chosen === "accept" || chosen === "reject") choose(chosen);
  if (reason.getAttribute("aria-invalid") === "true") {
    reason.focus();
  } else {
    const refused = document.getElementById("review-error");
    if (refused) refused.focus();
  }
})();
