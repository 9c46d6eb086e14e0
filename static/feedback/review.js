// Reviewing a person's rating, keyboard first (/review/, templates/feedback/review.html), in
// the ways of compare.js. A chooses Accept; R chooses Reject and puts the focus in the reason
// (a rejection needs one); E chooses Amend, shows the amendment's questions (the current
// rubric's, filled in with the rating's answers when they can be) and puts the focus in the
// first; Enter sends the choice, also from the reason field or a one-line answer (Shift+Enter
// in the reason starts a new line, as Enter does in a comment or a text answer; Ctrl+Enter
// sends from anywhere); ? lists the keys. A tap on Accept, Reject or Amend chooses too, and
// Submit sends. Shortcuts never fire while a text field has the focus; Esc leaves the field.
// The questions' own hotkeys are off on this page (the server draws none): a rubric may give a
// question A, R or E. rubric.js, loaded after this file when a question marks spans, marks
// them; every key is this file's, and none reaches rubric.js's handler (it would send the form
// itself, from a key this page leaves to the browser).
// Without this script the form still works: Accept, Reject and Amend are its submit buttons,
// the amendment's questions a <details> below them.
(function () {
  "use strict";
  const form = document.getElementById("review-form");
  if (!form) return;
  const reason = document.getElementById("reason");
  const submit = document.getElementById("review-submit");
  const amendment = document.getElementById("review-amend");
  const buttons = {
    accept: document.getElementById("decision-accept"),
    reject: document.getElementById("decision-reject"),
    amend: document.getElementById("decision-amend"),
  };
  if (!buttons.amend) delete buttons.amend; // a rating of a step not stored: not amended
  const SUBMIT_WORDS = { accept: "Submit: accept ", reject: "Submit: reject ", amend: "Submit: amend " };
  const CHOSEN_WORDS = {
    accept: "Accept chosen: submit it (Enter).",
    reject: "Reject chosen: say why, then submit it (Enter).",
    amend: "Amend chosen: give your answers, then submit them (Enter).",
  };
  const CHOOSE_FIRST = buttons.amend
    ? "Choose Accept (A), Reject (R) or Amend (E) first."
    : "Choose Accept (A) or Reject (R) first.";

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
      focusFor(decision);
    });
  });
  form.classList.add("js-review");
  submit.hidden = false;
  if (amendment) {
    // Amend shows it, open; its summary would only say so twice.
    amendment.open = true;
    amendment.querySelector("summary").hidden = true;
    amendment.hidden = true;
  }

  function choose(decision) {
    field.value = decision;
    Object.keys(buttons).forEach(function (each) {
      buttons[each].setAttribute("aria-pressed", each === decision ? "true" : "false");
    });
    if (amendment) amendment.hidden = decision !== "amend";
    submit.textContent = SUBMIT_WORDS[decision];
    const key = document.createElement("kbd");
    key.className = "key";
    key.textContent = "Enter";
    submit.appendChild(key);
    say(CHOSEN_WORDS[decision]);
  }

  // Where a choice puts the focus: Reject in the reason, Amend in its first question.
  function focusFor(decision) {
    if (decision === "reject") reason.focus();
    else if (decision === "amend") {
      const question = amendment.querySelector("fieldset.invalid") ||
        amendment.querySelector("fieldset.question") || amendment;
      const first = firstControl(question);
      if (first) first.focus();
    }
  }
  // The chosen option of a question if it has one, else its first control.
  function firstControl(within) {
    return within.querySelector("input:checked:not([type=hidden])") ||
      within.querySelector("input:not([type=hidden]), textarea, button");
  }
  // A field where Enter sends, as in the reason: one line of an answer (a number).
  function sendsOnEnter(target) {
    return target === reason ||
      (target.tagName === "INPUT" && Boolean(amendment) && amendment.contains(target));
  }

  // ---- Sending: once (keys.js), a reason and no choice a rejection ----
  function send() {
    if (!field.value) {
      if (!reason.value.trim()) {
        say(CHOOSE_FIRST);
        return;
      }
      choose("reject"); // a reason and no choice: the reason is a rejection's
    }
    shared.send(form);
  }
  form.addEventListener("submit", function (event) {
    if (!field.value) {
      event.preventDefault();
      say(CHOOSE_FIRST);
    }
  });

  // ---- Keys ----
  const typing = shared.typing;
  const pressable = shared.pressable;
  const decisionOf = {};
  Object.keys(buttons).forEach(function (decision) {
    decisionOf[buttons[decision].id] = decision;
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    event.stopImmediatePropagation(); // rubric.js's handler, after this one: see above
    if (shared.shortcutsOpen()) return; // the dialog closes itself on Esc
    const target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
      return;
    }
    if (typing(target)) {
      if (event.key === "Escape") target.blur();
      else if (event.key === "Enter" && sendsOnEnter(target) && !event.shiftKey && !event.altKey) {
        event.preventDefault();
        send();
      }
      return;
    }
    const decided = decisionOf[target.id];
    if (event.key === "Enter" && decided) {
      // Enter on a decision is that decision, sent (a tap or Space only chooses).
      event.preventDefault();
      choose(decided);
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
      case "e": case "E":
        if (!buttons.amend) {
          done = false;
          break;
        }
        choose("amend");
        focusFor("amend");
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
  if (buttons[chosen]) choose(chosen);
  const refusedRemark = amendment && amendment.querySelector("textarea[aria-invalid=true]");
  if (reason.getAttribute("aria-invalid") === "true") {
    reason.focus();
  } else if (chosen === "amend" && amendment && amendment.querySelector("fieldset.invalid")) {
    focusFor("amend"); // the first refused question
  } else if (chosen === "amend" && refusedRemark) {
    refusedRemark.focus();
  } else {
    const refused = document.getElementById("review-error");
    if (refused) refused.focus();
  }
})();
