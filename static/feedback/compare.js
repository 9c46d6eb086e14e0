// Judging a comparison, keyboard first (/compare/, templates/feedback/compare.html), in the
// ways of rate.js. Two responses: 1-5 choose the preference (A much better ... B much better).
// Three and more: a ranking, best first. Focus a response in the list (Tab, then Up/Down),
// move it with Alt+Up/Down or put it at a place with its number, or drag it by its handle
// (pointer events: a mouse anywhere on the row, a finger or a pen on the handle).
// Enter submits (Ctrl+Enter also inside the text field), M writes why, S skips, ? lists them.
// A ranking nobody placed is the order it was shown in: the first Enter asks for a move, or a
// second Enter to keep that order as the person's own (else position would pass for judgment).
// Shortcuts never fire while a text field has the focus; Esc leaves the field.
// Without this script the form still works: radios, or a rank select per response.
(function () {
  "use strict";
  const form = document.getElementById("judge-form");
  const skipForm = document.getElementById("skip-form");
  const rationale = document.getElementById("rationale");

  const shared = window.learnportalKeys;
  const say = shared.say;

  const send = shared.send;

  // ---- A preference of two ----
  const radios = form ? Array.from(form.querySelectorAll("input[name=preference]")) : [];
  function choose(index) {
    const radio = radios[index];
    if (!radio) return false;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    say("Chosen: " + radio.parentElement.textContent.trim().replace(/^\d\s*/, "") + ".");
    return true;
  }

  // ---- A ranking of three and more ----
  const ranking = (function () {
    const list = document.getElementById("ranking-list");
    const field = document.getElementById("ranking-field");
    if (!form || !list || !field) return null;
    form.classList.add("js-ranking");
    const help = document.getElementById("ranking-help");
    const helpKeys = document.getElementById("ranking-help-js");
    if (help) help.hidden = true;
    if (helpKeys) helpKeys.hidden = false;
    // The list says the ranking now: the selects are neither shown nor sent.
    list.querySelectorAll("select").forEach(function (select) { select.disabled = true; });

    function items() {
      return Array.from(list.querySelectorAll(":scope > .rank-item"));
    }
    function renumber() {
      const all = items();
      all.forEach(function (item, i) {
        item.querySelector(".rank-place").textContent = String(i + 1);
        item.setAttribute(
          "aria-label",
          "Response " + item.dataset.label + ", place " + (i + 1) + " of " + all.length
        );
        const select = item.querySelector("select");
        if (select) select.value = String(i + 1);
      });
      field.value = all.map(function (item) { return item.dataset.candidate; }).join(",");
    }
    function placed(item) {
      const all = items();
      say("Response " + item.dataset.label + " is at place " + (all.indexOf(item) + 1) +
        " of " + all.length + ".");
    }
    items().forEach(function (item) {
      item.tabIndex = 0;
      item.setAttribute("aria-describedby", "ranking-help-js");
    });
    renumber();

    // Sent back with a refusal, the list is in the order the person put it.
    let placedByHand = list.hasAttribute("data-placed");
    let keepShown = false;
    form.addEventListener("submit", function (event) {
      if (placedByHand || keepShown) return;
      event.preventDefault();
      keepShown = true;
      say("Put the responses in your order first, or press Enter again to keep this order.");
    });

    // `place` counts from 0; the item keeps the focus (moving a node in the DOM loses it).
    function moveTo(item, place) {
      placedByHand = true;
      const all = items();
      const to = Math.max(0, Math.min(all.length - 1, place));
      if (to !== all.indexOf(item)) {
        const rest = all.filter(function (other) { return other !== item; });
        list.insertBefore(item, rest[to] || null);
        renumber();
      }
      item.focus();
      placed(item);
    }

    function keys(event) {
      const item = event.target && event.target.closest ? event.target.closest(".rank-item") : null;
      if (!item || !list.contains(item)) return false;
      const all = items();
      const at = all.indexOf(item);
      if (event.key === "ArrowUp" || event.key === "ArrowDown") {
        const step = event.key === "ArrowUp" ? -1 : 1;
        if (event.altKey) {
          moveTo(item, at + step);
          return true;
        }
        if (event.ctrlKey || event.metaKey || event.shiftKey) return false;
        const next = all[at + step];
        if (next) next.focus();
        return true;
      }
      if (event.ctrlKey || event.metaKey || event.altKey) return false;
      if (/^[1-9]$/.test(event.key) && Number(event.key) <= all.length) {
        moveTo(item, Number(event.key) - 1);
        return true;
      }
      return false;
    }

    // By drag: the row follows the pointer among the others; the list holds the capture, so
    // that moving the row in the DOM never ends the drag.
    let drag = null;
    list.addEventListener("pointerdown", function (event) {
      const item = event.target.closest(".rank-item");
      if (!item || event.button !== 0) return;
      // A finger elsewhere on the row scrolls the page; only the handle drags by touch.
      if (event.pointerType !== "mouse" && !event.target.closest(".rank-handle")) return;
      event.preventDefault();
      drag = { item: item, pointer: event.pointerId, moved: false };
      list.setPointerCapture(event.pointerId);
      item.classList.add("dragging");
    });
    list.addEventListener("pointermove", function (event) {
      if (!drag || event.pointerId !== drag.pointer) return;
      let before = null;
      for (const other of items()) {
        if (other === drag.item) continue;
        const box = other.getBoundingClientRect();
        if (event.clientY < box.top + box.height / 2) {
          before = other;
          break;
        }
      }
      if (drag.item.nextElementSibling === before) return;
      list.insertBefore(drag.item, before);
      drag.moved = true;
      renumber();
    });
    function drop(event) {
      if (!drag || event.pointerId !== drag.pointer) return;
      const item = drag.item;
      item.classList.remove("dragging");
      if (list.hasPointerCapture(event.pointerId)) list.releasePointerCapture(event.pointerId);
      if (drag.moved) placedByHand = true;
      drag = null;
      item.focus({ preventScroll: true });
      placed(item);
    }
    list.addEventListener("pointerup", drop);
    list.addEventListener("pointercancel", drop);

    return { keys: keys };
  })();

  // ---- Keys ----
  const typing = shared.typing;
  const pressable = shared.pressable;

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    if (shared.shortcutsOpen()) return; // the dialog closes itself on Esc
    const target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && form) {
      event.preventDefault();
      send(form);
      return;
    }
    if (typing(target)) {
      if (event.key === "Escape") target.blur();
      return;
    }
    if (event.key === "Enter" && pressable(target)) return;
    if (ranking && ranking.keys(event)) {
      event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return; // the browser's own
    let done = true;
    switch (event.key) {
      case "1": case "2": case "3": case "4": case "5":
        done = choose(Number(event.key) - 1);
        break;
      case "Enter":
        if (form) send(form);
        else done = false;
        break;
      case "m": case "M":
        if (rationale) rationale.focus();
        else done = false;
        break;
      case "s": case "S":
        if (skipForm) send(skipForm);
        else done = false;
        break;
      case "?":
        shared.openShortcuts();
        break;
      default:
        done = false;
    }
    if (done) event.preventDefault();
  });

  // After a refused submit: the refusal, read out and in view.
  const refused = document.getElementById("judge-error");
  if (refused) refused.focus();
})();
