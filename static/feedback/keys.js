// What the keyboard-first pages share (rate.js: a turn, compare.js: a comparison, review.js: a
// rating reviewed): the status line keys speak in, the cheat-sheet `?` opens, whether a key goes
// to a field rather than to a shortcut, and a form sent once. Loaded before them (templates say so); they read it as window.learnportalKeys.
window.learnportalKeys = (function () {
  "use strict";
  const status = document.getElementById("key-status");
  const dialog = document.getElementById("shortcuts");

  function say(text) {
    if (status) status.textContent = text;
  }

  // ---- The cheat-sheet ----
  let before = null;
  function openShortcuts() {
    if (!dialog || dialog.open) return;
    before = document.activeElement;
    dialog.showModal();
  }
  if (dialog) {
    dialog.addEventListener("close", function () {
      if (before && before.focus) before.focus({ preventScroll: true });
    });
    document.querySelectorAll(".shortcuts-open").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", openShortcuts);
    });
  }
  function shortcutsOpen() {
    return Boolean(dialog && dialog.open);
  }

  // ---- Where a key goes ----
  function typing(element) {
    if (!element || element === document.body) return false;
    if (element.isContentEditable) return true;
    if (element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
    if (element.tagName !== "INPUT") return false;
    return ["radio", "checkbox", "range", "button", "submit", "reset", "hidden"].indexOf(
      element.type
    ) < 0;
  }
  function pressable(element) {
    return element && (element.tagName === "BUTTON" || element.tagName === "A" ||
      element.tagName === "SUMMARY");
  }

  // ---- Sending: once a page (and again after the back button brought the page back) ----
  // A submit that a form's own handler let through (it runs before this one) counts as sent;
  // a dialog's (the cheat-sheet's Close) only closes the dialog.
  let sending = false;
  document.addEventListener("submit", function (event) {
    if (!event.defaultPrevented && event.target.method !== "dialog") sending = true;
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) sending = false;
  });
  function send(form) {
    if (!sending && form) form.requestSubmit();
  }

  return {
    say: say,
    send: send,
    openShortcuts: openShortcuts,
    shortcutsOpen: shortcutsOpen,
    typing: typing,
    pressable: pressable,
  };
})();
